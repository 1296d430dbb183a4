import { TITLE_MAX_CHARS, titleProblem } from '@birdie/store/title';
import { createRoute, z } from '@hono/zod-openapi';
import { sessionJson } from '../session-json.js';
import { matching } from '../session-search.js';
import { apiErrorOf } from '../store-errors.js';
import {
  BODY_ERRORS,
  COMMON_ERRORS,
  defineRoute,
  errorResponses,
  jsonContent,
  SessionParams,
} from './define.js';
import { ApprovalRequestSchema, MessageSchema, SessionSchema } from './schemas.js';
import { sessionOf } from './session-of.js';

/**
 * Titles are one line the client shows: the store's rule (`titleProblem`), checked before the store with its reasons.
 * The bounds and the pattern are spelt out for the document; each check stops at the first problem. The length is
 * the store's (in characters, as JSON Schema's `maxLength` counts them), not zod's `max` (UTF-16 units).
 */
const Title = z
  .string()
  .min(1, { error: titleProblem(''), abort: true })
  .regex(/^[^\u0000-\u001f\u007f]*$/, { error: titleProblem('\n'), abort: true })
  .refine((title) => titleProblem(title) === undefined, { error: (issue) => titleProblem(issue.input) })
  .openapi({ maxLength: TITLE_MAX_CHARS });

export const createSession = defineRoute(
  createRoute({
    method: 'post',
    path: '/v1/sessions',
    operationId: 'createSession',
    summary: 'Start a session.',
    request: {
      body: {
        required: false,
        content: jsonContent(
          z.strictObject({
            agent: z.string().optional().openapi({ description: 'The agent that answers the first turn.' }),
            enable: z.array(z.string()).optional().openapi({
              description:
                'Skills enabled for the session, among those `GET /v1/skills` lists (a skill the server does not allow API sessions: 403 `skill-not-allowed`; a name no skill has: 400 `invalid-request`).',
            }),
            title: Title.optional(),
          }),
        ),
      },
    },
    responses: {
      201: { description: 'The new session.', content: jsonContent(SessionSchema) },
      ...errorResponses(...BODY_ERRORS, 'skill-not-allowed', 'agent-not-allowed', ...COMMON_ERRORS),
    },
  }),
  ({ runtime }) =>
    async (c) => {
      const { agent, title, enable } = c.req.valid('json');
      try {
        const session = await runtime.createSession(c.get('token').userId, {
          ...(agent !== undefined ? { agent } : {}),
          ...(title !== undefined ? { title } : {}),
          ...(enable ? { enable } : {}),
        });
        return c.json(sessionJson(session), 201);
      } catch (error) {
        throw apiErrorOf(error) ?? error;
      }
    },
);

export const listSessions = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/sessions',
    operationId: 'listSessions',
    summary: "The caller's sessions, the one used last first; with `q`, those whose title contains it.",
    request: {
      query: z.object({
        q: z.string().max(200).optional().openapi({
          description:
            'Only sessions whose title contains this text, ignoring case (a session is titled from its first prompt once it has an exchange).',
        }),
      }),
    },
    responses: {
      200: { description: 'Sessions.', content: jsonContent(z.object({ sessions: z.array(SessionSchema) })) },
      // `q` longer than 200 characters.
      ...errorResponses('invalid-request', ...COMMON_ERRORS),
    },
  }),
  ({ store }) =>
    async (c) => {
      const { q } = c.req.valid('query');
      const sessions = await store.sessions.list(c.get('token').userId);
      return c.json({ sessions: matching(sessions, q).map(sessionJson) }, 200);
    },
);

export const getSession = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/sessions/{id}',
    operationId: 'getSession',
    summary: 'One session: its messages, grants and pending approvals.',
    request: { params: SessionParams },
    responses: {
      200: {
        description: 'The session.',
        content: jsonContent(
          SessionSchema.extend({
            messages: z.array(MessageSchema),
            grants: z.object({ enabled: z.array(z.string()), disabled: z.array(z.string()) }),
            pendingApprovals: z.array(ApprovalRequestSchema),
          }),
        ),
      },
      ...errorResponses('not-found', ...COMMON_ERRORS),
    },
  }),
  ({ runtime, store }) =>
    async (c) => {
      const session = await sessionOf(c, store);
      const [{ messages, grants }, pendingApprovals] = await Promise.all([
        runtime.history(session),
        runtime.pendingApprovals(session),
      ]);
      // The runtime gives messages as loose JSON records (`messageJson`); test/openapi.test.ts checks them against
      // the schema.
      return c.json({ ...sessionJson(session), grants, messages, pendingApprovals } as never, 200);
    },
);

export const deleteSession = defineRoute(
  createRoute({
    method: 'delete',
    path: '/v1/sessions/{id}',
    operationId: 'deleteSession',
    summary: 'Delete the session with its history, grants, runs and files.',
    request: { params: SessionParams },
    responses: {
      204: { description: 'Deleted.' },
      ...errorResponses('not-found', 'session-busy', ...COMMON_ERRORS),
    },
  }),
  ({ runtime, store, workspaces }) =>
    async (c) => {
      const session = await sessionOf(c, store);
      try {
        // The lease, like a turn: a session with a turn running anywhere (this worker included) is not deleted.
        const lease = await store.leases.acquire(session.id, { waitMs: 0 });
        try {
          await runtime.deleteSession(session);
          await workspaces?.remove(session);
        } finally {
          await lease.release();
        }
      } catch (error) {
        throw apiErrorOf(error, session.id) ?? error;
      }
      return c.body(null, 204);
    },
);

export const renameSession = defineRoute(
  createRoute({
    method: 'patch',
    path: '/v1/sessions/{id}',
    operationId: 'updateSession',
    summary: 'Rename the session (its title, 1-200 characters on one line).',
    request: {
      params: SessionParams,
      body: { required: true, content: jsonContent(z.strictObject({ title: Title })) },
    },
    responses: {
      200: { description: 'The session, renamed.', content: jsonContent(SessionSchema) },
      ...errorResponses(...BODY_ERRORS, 'not-found', ...COMMON_ERRORS),
    },
  }),
  ({ store }) =>
    async (c) => {
      const session = await sessionOf(c, store);
      const { title } = c.req.valid('json');
      try {
        await store.sessions.rename(session.id, session.userId, title);
        const renamed = await store.sessions.get(session.id, session.userId);
        return c.json(sessionJson(renamed ?? { ...session, title }), 200);
      } catch (error) {
        throw apiErrorOf(error, session.id) ?? error;
      }
    },
);
