import type { ApiToken, RunRecord } from '@birdie/store';
import { validateSessionId, validateUserId } from '@birdie/store';
import { isStoreError, withoutHolder } from '@birdie/store/errors';
import { createRoute, z } from '@hono/zod-openapi';
import { runsUserOf } from '../admin.js';
import { ApiError } from '../errors.js';
import { apiErrorOf } from '../store-errors.js';
import { COMMON_ERRORS, defineRoute, errorResponses, jsonContent } from './define.js';
import { filterText, RunSchema } from './schemas.js';

export const listRuns = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/runs',
    operationId: 'listRuns',
    summary:
      "The caller's runs, newest first, each with its tool calls; with `user`, that user's (an admin token's only).",
    request: {
      query: z.object({
        session: filterText().optional().openapi({ description: 'Only this session.' }),
        user: filterText().optional().openapi({
          description:
            "Whose runs: the caller's own by default; another user's needs an admin token (else 403 `forbidden`).",
        }),
        status: z
          .enum(['running', 'ok', 'error', 'interrupted', 'rejected', 'cancelled', 'died'])
          .optional()
          .openapi({ description: 'Only runs that ended (or are) so.' }),
        agent: filterText()
          .max(128)
          .optional()
          .openapi({ description: 'Only runs whose agent has this name.' }),
        since: z.iso
          .datetime({ offset: true })
          .optional()
          .openapi({ description: 'Only runs started at or after this time.' }),
        before: z.coerce.number().int().min(1).optional().openapi({
          description: 'Only runs with a smaller id: the next page is `before` = the last id of this one.',
        }),
        parent: z
          // At most 15 digits: every such id is exact as a JavaScript number (16 digits may not be, and a store refuses it).
          .union([z.literal('none'), z.string().regex(/^[1-9]\d{0,14}$/)], {
            error: 'must be none or a run id (1-15 digits)',
          })
          .optional()
          .openapi({
            description:
              "`none`: only runs nobody delegated (a person's turns, triggers); a run id: that run's subagent runs.",
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
      const { session: sessionId, limit, user, status, agent, since, before, parent } = c.req.valid('query');
      // A filter that is no id at all is the request's mistake (400 naming it), not a run or session not found.
      if (user !== undefined) checkFilter('user', () => validateUserId(user));
      if (sessionId !== undefined) checkFilter('session', () => validateSessionId(sessionId));
      const userId = runsUserOf(c.get('token'), user);
      try {
        const runs = await store.runs.list({
          userId,
          limit,
          ...(sessionId !== undefined ? { sessionId } : {}),
          ...(status !== undefined ? { status } : {}),
          ...(agent !== undefined ? { agent } : {}),
          ...(since !== undefined ? { since: new Date(since) } : {}),
          ...(before !== undefined ? { beforeId: before } : {}),
          ...(parent !== undefined ? { parentRunId: parent === 'none' ? null : Number(parent) } : {}),
        });
        const caller = c.get('token');
        return c.json({ runs: runs.map((run) => runFor(caller, run)) }, 200);
      } catch (error) {
        throw apiErrorOf(error, sessionId) ?? error;
      }
    },
);

/** A run id in the path. Not validated here: a malformed id is 404 like a missing one. */
const RunParams = z.object({
  id: z
    .string()
    .openapi({ param: { name: 'id', in: 'path' }, pattern: '^[1-9]\\d{0,15}$', description: 'Run id.' }),
});

export const getRun = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/runs/{id}',
    operationId: 'getRun',
    summary:
      "One run of the caller: status, agent, tool calls, tokens per model, answer, error (another user's is 404, like a missing one).",
    request: { params: RunParams },
    responses: {
      200: { description: 'The run.', content: jsonContent(RunSchema) },
      ...errorResponses('not-found', ...COMMON_ERRORS),
    },
  }),
  ({ store }) =>
    async (c) => {
      const raw = c.req.valid('param').id;
      const missing = () => new ApiError('not-found', `no run ${raw}`);
      if (!/^[1-9]\d{0,15}$/.test(raw)) throw missing();
      try {
        const run = await store.runs.get(Number(raw), c.get('token').userId);
        if (!run) throw missing();
        return c.json(runFor(c.get('token'), run) as never, 200);
      } catch (error) {
        if (isStoreError(error, 'not-owner', 'not-found', 'invalid-id')) throw missing();
        throw apiErrorOf(error) ?? error;
      }
    },
);

function checkFilter(name: string, check: () => unknown): void {
  try {
    check();
  } catch (error) {
    if (isStoreError(error, 'invalid-id'))
      throw new ApiError('invalid-request', `invalid query: ${name}: ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * A run as the caller may see it. The machine's name and the worker's process id are the operator's business: on a
 * shared server a user token gets neither, nor in the error of a run whose worker died (said without them).
 */
export function runFor(caller: ApiToken, run: RunRecord): RunRecord {
  if (caller.admin) return run;
  const { host, pid, ...seen } = run;
  // A died run's error names the process and the host when the store found its holder gone or its lease taken over;
  // one that died for another reason (its end not recorded while the database was down) keeps its words.
  if (run.status === 'died' && run.error !== undefined) seen.error = withoutHolder('died', run.error);
  return seen;
}
