import type { ApprovalDecision } from '@birdie/graph/event-json';
import { createRoute, z } from '@hono/zod-openapi';
import { checkDecisions } from '../decisions.js';
import { ApiError } from '../errors.js';
import { apiErrorOf } from '../store-errors.js';
import {
  BODY_ERRORS,
  COMMON_ERRORS,
  defineRoute,
  EVENT_STREAM,
  errorResponses,
  jsonContent,
  SessionParams,
} from './define.js';
import { DecisionSchema } from './schemas.js';
import { sessionOf } from './session-of.js';

const MAX_PROMPT = 100_000;

export const startTurn = defineRoute(
  createRoute({
    method: 'post',
    path: '/v1/sessions/{id}/turns',
    operationId: 'startTurn',
    summary: 'Run one turn; its events stream back.',
    request: {
      params: SessionParams,
      body: {
        required: true,
        content: jsonContent(
          z.object({
            prompt: z
              .string()
              .min(1)
              .max(MAX_PROMPT)
              .refine((p) => p.trim() !== '', 'must not be empty'),
          }),
        ),
      },
    },
    responses: {
      200: EVENT_STREAM,
      ...errorResponses(...BODY_ERRORS, 'not-found', 'session-busy', ...COMMON_ERRORS),
    },
  }),
  ({ store, turns }) =>
    async (c) => {
      const { prompt } = c.req.valid('json');
      const session = await sessionOf(c, store);
      return turns.start(session, prompt, { requestId: c.get('requestId') });
    },
);

export const answerApprovals = defineRoute(
  createRoute({
    method: 'post',
    path: '/v1/sessions/{id}/approvals',
    operationId: 'answerApprovals',
    summary: 'Answer the approvals a turn stopped for, on any worker; the rest of the turn streams back.',
    request: {
      params: SessionParams,
      body: {
        required: true,
        content: jsonContent(
          z.object({
            decisions: z
              .record(z.string(), DecisionSchema)
              .openapi({ description: 'One decision per pending call id.' }),
          }),
        ),
      },
    },
    responses: {
      200: EVENT_STREAM,
      ...errorResponses(
        ...BODY_ERRORS,
        'invalid-arguments',
        'not-found',
        'session-busy',
        'nothing-pending',
        ...COMMON_ERRORS,
      ),
    },
  }),
  ({ runtime, store, turns }) =>
    async (c) => {
      const decisions = c.req.valid('json').decisions as Record<string, ApprovalDecision>;
      const session = await sessionOf(c, store);
      const pending = await runtime.pendingApprovals(session);
      if (pending.length === 0)
        throw new ApiError('nothing-pending', `session ${session.id} is not waiting for an approval`);
      checkDecisions(decisions, pending);
      return turns.start(session, { decisions }, { requestId: c.get('requestId') });
    },
);

export const cancelTurn = defineRoute(
  createRoute({
    method: 'post',
    path: '/v1/sessions/{id}/cancel',
    operationId: 'cancelTurn',
    summary: "Stop the session's running turn, on whichever worker runs it.",
    request: { params: SessionParams },
    responses: {
      202: {
        description: '`cancelled`: whether a turn was running (it ends with status `cancelled`).',
        content: jsonContent(z.object({ cancelled: z.boolean() })),
      },
      ...errorResponses('not-found', ...COMMON_ERRORS),
    },
  }),
  ({ store, turns }) =>
    async (c) => {
      const session = await sessionOf(c, store);
      try {
        return c.json({ cancelled: await turns.cancel(store, session.id) }, 202);
      } catch (error) {
        throw apiErrorOf(error, session.id) ?? error;
      }
    },
);
