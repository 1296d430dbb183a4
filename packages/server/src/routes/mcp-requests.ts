import { createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '../errors.js';
import {
  BODY_ERRORS,
  COMMON_ERRORS,
  defineRoute,
  errorResponses,
  jsonContent,
  SessionParams,
} from './define.js';
import { sessionOf } from './session-of.js';

const AnswerSchema = z
  .strictObject({
    approve: z.boolean().optional().openapi({
      description: 'For `sampling` and `sampling-answer`: whether the request (or the answer) may go on.',
    }),
    action: z
      .enum(['accept', 'decline', 'cancel'])
      .optional()
      .openapi({ description: 'For `elicitation`: what the user did with the form.' }),
    content: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
      .optional()
      .openapi({ description: "For an accepted `elicitation`: the form's values, as its schema asks." }),
  })
  .strict()
  .openapi('McpRequestAnswer');

/** `POST /v1/sessions/{id}/mcp-requests/{requestId}`: the answer to an `mcp-request` event of a running turn. */
export const answerMcpRequest = defineRoute(
  createRoute({
    method: 'post',
    path: '/v1/sessions/{id}/mcp-requests/{requestId}',
    operationId: 'answerMcpRequest',
    summary:
      "Answer an MCP server's request (an `mcp-request` event): approve or refuse sampling and its answer, fill or decline an elicitation form. The turn waits on the worker that streams it; unanswered in 5 minutes, sampling is refused and elicitation declined.",
    request: {
      params: SessionParams.extend({
        requestId: z
          .string()
          .openapi({ param: { name: 'requestId', in: 'path' }, description: 'The event’s `id`.' }),
      }),
      body: { required: true, content: jsonContent(AnswerSchema) },
    },
    responses: {
      200: {
        description: 'The answer reached the waiting request; the turn goes on on its stream.',
        content: jsonContent(z.object({ answered: z.literal(true) })),
      },
      ...errorResponses(...BODY_ERRORS, 'not-found', ...COMMON_ERRORS),
    },
  }),
  ({ store, turns }) =>
    async (c) => {
      const session = await sessionOf(c, store);
      const { requestId } = c.req.valid('param');
      if (!turns.mcpRequests.answer(session.id, requestId, c.req.valid('json')))
        throw new ApiError('not-found', `no MCP request ${requestId} waits in session ${session.id}`);
      return c.json({ answered: true as const }, 200);
    },
);
