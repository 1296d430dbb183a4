import { createRoute, z } from '@hono/zod-openapi';
import { apiErrorOf } from '../store-errors.js';
import { COMMON_ERRORS, defineRoute, errorResponses, jsonContent } from './define.js';
import { RunSchema } from './schemas.js';

export const listRuns = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/runs',
    operationId: 'listRuns',
    summary: "The caller's runs, newest first, each with its tool calls.",
    request: {
      query: z.object({
        session: z.string().optional().openapi({ description: 'Only this session.' }),
        limit: z.coerce.number().int().min(1).max(500).default(50),
      }),
    },
    responses: {
      200: { description: 'Runs.', content: jsonContent(z.object({ runs: z.array(RunSchema) })) },
      ...errorResponses('invalid-request', 'not-found', ...COMMON_ERRORS),
    },
  }),
  ({ store }) =>
    async (c) => {
      const { session: sessionId, limit } = c.req.valid('query');
      try {
        const runs = await store.runs.list({
          userId: c.get('token').userId,
          limit,
          ...(sessionId !== undefined ? { sessionId } : {}),
        });
        return c.json({ runs }, 200);
      } catch (error) {
        throw apiErrorOf(error, sessionId) ?? error;
      }
    },
);
