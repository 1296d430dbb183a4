import type { Hook } from '@hono/zod-openapi';
import { ApiError } from './errors.js';

/**
 * What a route's request validation does when the request does not fit its schema: the API's own error,
 * `400 invalid-request` with `{ error: { code, message } }` (thrown to the app's error handler, like every other
 * refusal), naming each problem as `where: what`.
 */
export const refuseInvalid: Hook<unknown, never, string, undefined> = (result) => {
  if (result.success) return;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.length > 0 ? issue.path.join('.') : result.target}: ${issue.message}`,
  );
  throw new ApiError('invalid-request', `invalid ${result.target}: ${problems.join('; ')}`);
};
