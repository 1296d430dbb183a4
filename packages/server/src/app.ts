import type { ApprovalDecision, ApprovalRequest } from '@birdie/graph/event-json';
import { checkToolArgs } from '@birdie/graph/tools';
import type { ApiToken, Session } from '@birdie/store';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { listTokens, revokeToken, runsUserOf } from './admin.js';
import { ApiError, errorBody } from './errors.js';
import { idempotencyKeyOf, requestDigest } from './idempotency.js';
import { openApiDocument } from './openapi.js';
import { RateLimiter } from './rate-limit.js';
import { readiness } from './readiness.js';
import type { ServeRuntime } from './runtime.js';
import { sessionEvents } from './session-events.js';
import { listSkills } from './skills.js';
import { apiErrorOf } from './store-errors.js';
import type { Turns } from './turns.js';
import type { Workspaces } from './workspaces.js';

export interface AppOptions {
  runtime: ServeRuntime;
  turns: Turns;
  /** Deleting a session deletes its own workspace (`per: 'session'`). */
  workspaces?: Workspaces;
  version: string;
  maxBodyBytes: number;
  rateLimit: { requests: number; perMs: number } | false;
  corsOrigins: string[];
  /** Unexpected failures (never sent to the client): the application logs them. */
  onError(error: unknown, where: string): void;
}

type Env = { Variables: { token: ApiToken } };

const MAX_PROMPT = 100_000;

/** The API as a Hono app: `fetch(request)` for any adapter or test. */
export function createApp(o: AppOptions): Hono<Env> {
  const { runtime, turns } = o;
  const { store } = runtime;
  const app = new Hono<Env>();
  const limiter = o.rateLimit ? new RateLimiter(o.rateLimit.requests, o.rateLimit.perMs) : undefined;

  if (o.corsOrigins.length > 0) {
    app.use(
      '/v1/*',
      cors({
        origin: o.corsOrigins,
        allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID'],
        allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
        maxAge: 600,
      }),
    );
  }
  app.use(
    '/v1/*',
    bodyLimit({
      maxSize: o.maxBodyBytes,
      onError: (c) => {
        // The rest of the body is never read: the connection cannot carry another request.
        c.header('Connection', 'close');
        return c.json(
          errorBody('payload-too-large', `the request body is larger than ${o.maxBodyBytes} bytes`),
          413,
        );
      },
    }),
  );

  app.get('/v1/health', (c) => c.json({ status: 'ok', version: o.version, store: store.kind }));
  app.get('/v1/openapi.json', (c) => c.json(openApiDocument(o.version)));
  app.get('/v1/ready', async (c) => {
    const { status, body } = await readiness(store, { accepting: turns.isAccepting, version: o.version });
    if (status === 503) c.header('Retry-After', '5');
    return c.json(body, status);
  });

  // Everything else needs a token, and each token has its own rate.
  app.use('/v1/*', async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const token = match ? await verify(match[1]!) : undefined;
    if (!token) {
      c.header('WWW-Authenticate', 'Bearer realm="birdie"');
      throw new ApiError('unauthorized', 'a valid token is required: Authorization: Bearer TOKEN');
    }
    const wait = limiter?.take(token.id) ?? 0;
    if (wait > 0)
      throw new ApiError('rate-limited', `too many requests; retry in ${wait} s`, { retryAfter: wait });
    c.set('token', token);
    await next();
  });

  async function verify(token: string): Promise<ApiToken | undefined> {
    try {
      return await store.tokens.verify(token);
    } catch (error) {
      throw apiErrorOf(error) ?? error;
    }
  }

  /** The caller's session, or 404 (missing, malformed or another user's: never which). */
  async function sessionOf(c: Context<Env>): Promise<Session> {
    const id = c.req.param('id') ?? '';
    try {
      const session = await store.sessions.get(id, c.get('token').userId);
      if (session) return session;
    } catch (error) {
      throw apiErrorOf(error, id) ?? error;
    }
    throw new ApiError('not-found', `no session ${id}`);
  }

  app.post('/v1/sessions', async (c) => {
    const body = await jsonBody(c, true);
    const agent = optionalString(body, 'agent');
    const title = optionalString(body, 'title');
    const enable = body.enable;
    if (enable !== undefined && !(Array.isArray(enable) && enable.every((e) => typeof e === 'string')))
      throw new ApiError('invalid-request', 'enable must be a list of skill names');
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
  });

  app.get('/v1/sessions', async (c) => {
    const sessions = await store.sessions.list(c.get('token').userId);
    return c.json({ sessions: sessions.map(sessionJson) });
  });

  app.get('/v1/sessions/:id', async (c) => {
    const session = await sessionOf(c);
    const [{ messages, grants }, pendingApprovals] = await Promise.all([
      runtime.history(session),
      runtime.pendingApprovals(session),
    ]);
    return c.json({ ...sessionJson(session), grants, messages, pendingApprovals });
  });

  app.delete('/v1/sessions/:id', async (c) => {
    const session = await sessionOf(c);
    try {
      // The lease, like a turn: a session with a turn running anywhere (this worker included) is not deleted.
      const lease = await store.leases.acquire(session.id, { waitMs: 0 });
      try {
        await runtime.deleteSession(session);
        await o.workspaces?.remove(session);
      } finally {
        await lease.release();
      }
    } catch (error) {
      throw apiErrorOf(error, session.id) ?? error;
    }
    return c.body(null, 204);
  });

  app.post('/v1/sessions/:id/turns', async (c) => {
    const body = await jsonBody(c, false);
    const prompt = body.prompt;
    if (typeof prompt !== 'string' || prompt.trim() === '' || prompt.length > MAX_PROMPT)
      throw new ApiError(
        'invalid-request',
        `prompt must be a non-empty string of at most ${MAX_PROMPT} characters`,
      );
    const key = idempotencyKeyOf(c.req.header('idempotency-key'));
    const session = await sessionOf(c);
    return turns.start(session, prompt, key === undefined ? {} : { key, digest: requestDigest(body) });
  });

  app.get('/v1/sessions/:id/events', async (c) =>
    sessionEvents(store, turns.followers, await sessionOf(c), c.req.header('last-event-id')),
  );

  app.post('/v1/sessions/:id/approvals', async (c) => {
    const body = await jsonBody(c, false);
    const session = await sessionOf(c);
    const pending = await runtime.pendingApprovals(session);
    if (pending.length === 0)
      throw new ApiError('nothing-pending', `session ${session.id} is not waiting for an approval`);
    const decisions = checkDecisions(
      body.decisions,
      pending.map((p) => p.id),
    );
    checkEdits(decisions, pending);
    return turns.start(session, { decisions });
  });

  app.post('/v1/sessions/:id/cancel', async (c) => {
    const session = await sessionOf(c);
    try {
      return c.json({ cancelled: await turns.cancel(store, session.id) }, 202);
    } catch (error) {
      throw apiErrorOf(error, session.id) ?? error;
    }
  });

  app.get('/v1/skills', listSkills(runtime));

  app.get('/v1/runs', async (c) => {
    const userId = runsUserOf(c.get('token'), c.req.query('user'));
    const sessionId = c.req.query('session');
    const limitText = c.req.query('limit');
    const limit = limitText === undefined ? 50 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500)
      throw new ApiError('invalid-request', 'limit must be an integer from 1 to 500');
    try {
      const runs = await store.runs.list({
        userId,
        limit,
        ...(sessionId !== undefined ? { sessionId } : {}),
      });
      return c.json({ runs });
    } catch (error) {
      throw apiErrorOf(error, sessionId) ?? error;
    }
  });

  // Admin routes: the handlers (and the role check) live in admin.ts.
  app.get('/v1/tokens', async (c) => c.json(await listTokens(store, c.get('token'), c.req.query('user'))));
  app.delete('/v1/tokens/:id', async (c) => {
    await revokeToken(store, c.get('token'), c.req.param('id'));
    return c.body(null, 204);
  });

  app.notFound((c) => c.json(errorBody('not-found', `no such endpoint: ${c.req.method} ${c.req.path}`), 404));
  app.onError((error, c) => {
    const known = error instanceof ApiError ? error : apiErrorOf(error);
    if (known) {
      if (known.retryAfter !== undefined) c.header('Retry-After', String(known.retryAfter));
      return c.json(errorBody(known.code, known.message), known.status as never);
    }
    // A bug or an unexpected failure: logged by the application, never shown (no stack, no internals).
    o.onError(error, `${c.req.method} ${c.req.path}`);
    return c.json(errorBody('internal', 'internal error'), 500);
  });
  return app;
}

/**
 * Edited arguments are checked against the tool's JSON Schema (defaults applied, as the call will be) before the
 * turn resumes, as the REPL checks them: a bad edit is refused here, with nothing resumed, rather than failing the
 * call later. A request without a schema (the model's own agent's tools) takes any object.
 */
function checkEdits(decisions: Record<string, ApprovalDecision>, pending: ApprovalRequest[]): void {
  for (const request of pending) {
    const decision = decisions[request.id];
    if (decision?.type !== 'edit' || !request.parameters) continue;
    const problem = checkToolArgs(request.parameters, decision.args);
    if (problem === undefined) continue;
    const details = problem.slice(problem.indexOf('\n') + 1);
    throw new ApiError(
      'invalid-arguments',
      `edited arguments of ${request.id} (${request.tool}) do not fit the tool's schema:\n${details}`,
    );
  }
}

/** A JSON object body; `optional`: an empty body is `{}`. Anything else is 400 (or 415 for another media type). */
async function jsonBody(c: Context<Env>, optional: boolean): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') {
    if (optional) return {};
    throw new ApiError('invalid-request', 'the request needs a JSON body');
  }
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\b/i.test(type))
    throw new ApiError('unsupported-media-type', 'send the body as application/json');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('invalid-request', 'the body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ApiError('invalid-request', 'the body must be a JSON object');
  return value as Record<string, unknown>;
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ApiError('invalid-request', `${key} must be a string`);
  return value;
}

/** One decision per pending call, each approve, reject (with an optional message) or edit (with new args). */
function checkDecisions(value: unknown, pending: string[]): Record<string, ApprovalDecision> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ApiError(
      'invalid-request',
      'decisions must be an object: call id → { "type": "approve" | "reject" | "edit" }',
    );
  const given = value as Record<string, unknown>;
  const unknown = Object.keys(given).filter((id) => !pending.includes(id));
  if (unknown.length > 0)
    throw new ApiError(
      'invalid-request',
      `no pending approval ${unknown.map((id) => JSON.stringify(id)).join(', ')}`,
    );
  const missing = pending.filter((id) => !(id in given));
  if (missing.length > 0)
    throw new ApiError('invalid-request', `decide every pending call; missing: ${missing.join(', ')}`);
  const out: Record<string, ApprovalDecision> = {};
  for (const id of pending) {
    const d = given[id] as { type?: unknown; message?: unknown; args?: unknown; scope?: unknown } | null;
    if (d?.type === 'approve' && (d.scope === undefined || d.scope === 'once' || d.scope === 'session'))
      // `scope: 'session'`: the tool runs without asking for the rest of the session (kept with it, bound to its file).
      out[id] = d.scope === undefined ? { type: 'approve' } : { type: 'approve', scope: d.scope };
    else if (d?.type === 'reject')
      out[id] = typeof d.message === 'string' ? { type: 'reject', message: d.message } : { type: 'reject' };
    else if (d?.type === 'edit' && d.args !== null && typeof d.args === 'object' && !Array.isArray(d.args))
      out[id] = { type: 'edit', args: d.args as Record<string, unknown> };
    else
      throw new ApiError(
        'invalid-request',
        `decision for ${id} must be approve (scope once or session), reject or edit (with args)`,
      );
  }
  return out;
}

/** A session as the API shows it (the user is the caller). */
export function sessionJson(s: Session): Record<string, unknown> {
  return {
    id: s.id,
    ...(s.title !== undefined ? { title: s.title } : {}),
    ...(s.agent !== undefined ? { agent: s.agent } : {}),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    turns: s.turns,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
  };
}
