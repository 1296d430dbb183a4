import { createRoute, z } from '@hono/zod-openapi';
import { runsUserOf } from '../admin.js';
import { apiErrorOf } from '../store-errors.js';
import { COMMON_ERRORS, defineRoute, errorResponses, jsonContent } from './define.js';
import { RunSchema } from './schemas.js';

export const listRuns = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/runs',
    operationId: 'listRuns',
    summary:
      "The caller's runs, newest first, each with its tool calls; with `user`, that user's (an admin token's only).",
    request: {
      query: z.object({
        session: z.string().optional().openapi({ description: 'Only this session.' }),
        user: z.string().optional().openapi({
          description:
            "Whose runs: the caller's own by default; another user's needs an admin token (else 403 `forbidden`).",
        }),
        limit: z.coerce.number().int().min(1).max(500).default(50),
      }),
    },
    responses: {
      200: { description: 'Runs.', content: jsonContent(z.object({ runs: z.array(RunSchema) })) },
      ...errorResponses('invalid-request', 'forbidden', 'not-found', ...COMMON_ERRORS),
    },
  }),
  ({ store }) =>
    async (c) => {
      const { session: sessionId, limit, user } = c.req.valid('query');
      const userId = runsUserOf(c.get('token'), user);
      try {
        const runs = await store.runs.list({
          userId,
          limit,
          ...(sessionId !== undefined ? { sessionId } : {}),
        });
        return c.json({ runs }, 200);
      } catch (error) {
        throw apiErrorOf(error, sessionId) ?? error;
      }
    },
);
