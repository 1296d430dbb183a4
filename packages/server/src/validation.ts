import type { Hook } from '@hono/zod-openapi';
import { ApiError } from './errors.js';

/**
 * What a route's request validation does when the request does not fit its schema: the API's own error,
 * `400 invalid-request` with `{ error: { code, message } }` (thrown to the app's error handler, like every other
 * refusal), naming each problem as `where: what` after the part of the request it is in (`invalid request body: prompt: …`).
 */
export const refuseInvalid: Hook<unknown, never, string, undefined> = (result) => {
  if (result.success) return;
  // A problem of the part as a whole (a body that is an array) is said without a field.
  const problems = result.error.issues.map(
    (issue) => `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`,
  );
  throw new ApiError(
    'invalid-request',
    `invalid ${TARGETS[result.target] ?? result.target}: ${problems.join('; ')}`,
  );
};

/**
 * What each part of a request is called in the message. A body that reached validation is well-formed JSON (one that
 * is not is refused before, as "the body is not valid JSON"): what is wrong is its content, so it is the request body.
 */
const TARGETS: Record<string, string> = {
  json: 'request body',
  form: 'request body',
  query: 'query',
  param: 'path',
  header: 'header',
  cookie: 'cookie',
};
