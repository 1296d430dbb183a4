import type { ApprovalDecision } from '@birdie/graph/event-json';
import { createRoute, z } from '@hono/zod-openapi';
import { checkDecisions } from '../decisions.js';
import { ApiError } from '../errors.js';
import { IDEMPOTENCY_KEY, requestDigest } from '../idempotency.js';
import { sessionEvents } from '../session-events.js';
import { apiErrorOf, sessionBusy } from '../store-errors.js';
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

/** Refusals of a request that would start a new run: the user's turn limits and workspace quota. */
const NEW_RUN_ERRORS = [
  'workspace-bytes-exceeded',
  'concurrent-turns-limit',
  'turns-per-minute-limit',
] as const;

export const startTurn = defineRoute(
  createRoute({
    method: 'post',
    path: '/v1/sessions/{id}/turns',
    operationId: 'startTurn',
    summary: 'Run one turn; its events stream back.',
    request: {
      params: SessionParams,
      headers: z.object({
        'idempotency-key': z
          .string()
          .regex(
            IDEMPOTENCY_KEY,
            'Idempotency-Key must be 1-255 visible ASCII characters (no spaces), such as a UUID',
          )
          .optional()
          .openapi({
            description:
              "Submits the turn once: the same key again (same user and session, within 24 h of the turn's end) answers with that turn's stream — its recorded events, then the rest while it runs — instead of running another. The same key with another body is 422 `idempotency-key-reused`.",
          }),
      }),
      body: {
        required: true,
        content: jsonContent(
          z.strictObject({
            prompt: z
              .string()
              .max(MAX_PROMPT)
              .refine((p) => p.trim() !== '', 'must not be empty'),
          }),
        ),
      },
    },
    responses: {
      200: EVENT_STREAM,
      ...errorResponses(
        ...BODY_ERRORS,
        'not-found',
        'session-busy',
        ...NEW_RUN_ERRORS,
        'idempotency-key-reused',
        ...COMMON_ERRORS,
      ),
    },
  }),
  ({ store, turns }) =>
    async (c) => {
      const { prompt } = c.req.valid('json');
      const key = c.req.valid('header')['idempotency-key'];
      const session = await sessionOf(c, store);
      const requestId = c.get('requestId');
      // The digest is of the body as sent (json-body.ts parsed it once), so a resend matches whatever its key order.
      const submission =
        key === undefined
          ? { requestId }
          : { key, digest: requestDigest((await c.req.json()) as Record<string, unknown>), requestId };
      return turns.start(session, prompt, submission);
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
          z.strictObject({
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
        ...NEW_RUN_ERRORS,
        ...COMMON_ERRORS,
      ),
    },
  }),
  ({ runtime, store, turns }) =>
    async (c) => {
      const decisions = c.req.valid('json').decisions as Record<string, ApprovalDecision>;
      const session = await sessionOf(c, store);
      // A running turn first: its session waits for nothing yet, and the client should wait for its end, not give up.
      if (await store.leases.holder(session.id)) throw sessionBusy(session.id);
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

export const followEvents = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/sessions/{id}/events',
    operationId: 'followSessionEvents',
    summary:
      "Reattach, on any worker: with `Last-Event-ID` of a turn still running, the rest of that turn (ended as lost if its worker died); of a turn that ended, the session's events after it until its newest turn ends; without it, the session's newest turn from its start.",
    request: {
      params: SessionParams,
      headers: z.object({
        'last-event-id': z
          .string()
          .regex(/^\d{1,15}$/, 'Last-Event-ID must be the id of an event of this API (an integer)')
          .optional()
          .openapi({
            description:
              'The `id:` of the last event the client has (what an EventSource sends when it reconnects).',
          }),
      }),
    },
    responses: {
      200: {
        description:
          'A `text/event-stream` of recorded events, each with its `id:`; it ends when the turn it follows ends. Tokens are recorded coalesced (one event per message part).',
        content: EVENT_STREAM.content,
      },
      ...errorResponses('invalid-request', 'not-found', ...COMMON_ERRORS),
    },
  }),
  ({ store, turns }) =>
    async (c) =>
      sessionEvents(
        store,
        turns.followers,
        await sessionOf(c, store),
        c.req.valid('header')['last-event-id'],
      ),
);
