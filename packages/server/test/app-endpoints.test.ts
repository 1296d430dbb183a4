import { describe, expect, it } from 'vitest';
import { useServer } from './helpers.js';

// The endpoints the web app needs (issue 34): rename and search sessions, a run's detail, scheduled tasks, a
// session's skills, the agents. Real HTTP to a listening server; every one scoped to the caller.

type Json = Record<string, unknown>;

describe('the web app endpoints', () => {
  const h = useServer();

  /** The server on a real port, and a request to it as `token`. */
  async function listening() {
    const { url } = await h.server.listen({ host: '127.0.0.1', port: 0 });
    return (path: string, token: string, init: { method?: string; json?: unknown } = {}) =>
      fetch(`${url}${path}`, {
        method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'),
        headers: {
          authorization: `Bearer ${token}`,
          ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
      });
  }

  async function session(call: Awaited<ReturnType<typeof listening>>, token: string, title?: string) {
    const created = await call('/v1/sessions', token, { json: title === undefined ? {} : { title } });
    expect(created.status).toBe(201);
    return ((await created.json()) as { id: string }).id;
  }

  it('PATCH /v1/sessions/{id} renames the caller’s session; another user’s is 404 and stays as it was', async () => {
    const call = await listening();
    const alice = await h.token('alice');
    const bob = await h.token('bob');
    const id = await session(call, alice, 'first');

    const renamed = await call(`/v1/sessions/${id}`, alice, {
      method: 'PATCH',
      json: { title: 'Quarterly plan' },
    });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ id, title: 'Quarterly plan' });
    expect(await (await call(`/v1/sessions/${id}`, alice)).json()).toMatchObject({ title: 'Quarterly plan' });

    const stolen = await call(`/v1/sessions/${id}`, bob, { method: 'PATCH', json: { title: 'mine now' } });
    expect(stolen.status).toBe(404);
    expect(((await stolen.json()) as { error: Json }).error.code).toBe('not-found');
    expect((await h.store.sessions.get(id, 'alice'))?.title).toBe('Quarterly plan');

    for (const title of ['', 'two\nlines', 'x'.repeat(201), 42]) {
      const bad = await call(`/v1/sessions/${id}`, alice, { method: 'PATCH', json: { title } });
      expect(bad.status, JSON.stringify(title)).toBe(400);
      expect(((await bad.json()) as { error: Json }).error.code).toBe('invalid-request');
    }
    expect(
      (await call('/v1/sessions/2026-01-01_9', alice, { method: 'PATCH', json: { title: 'x' } })).status,
    ).toBe(404);
  });

  it('GET /v1/sessions?q= finds the caller’s sessions by title, ignoring case; never another user’s', async () => {
    const call = await listening();
    const alice = await h.token('alice');
    const bob = await h.token('bob');
    const plan = await session(call, alice, 'Quarterly  Plan');
    await session(call, alice, 'groceries');
    await session(call, alice);
    await session(call, bob, 'my quarterly plan');

    const found = async (token: string, q: string) =>
      ((await (await call(`/v1/sessions?q=${encodeURIComponent(q)}`, token)).json()) as { sessions: Json[] })
        .sessions;
    expect((await found(alice, 'quarterly plan')).map((s) => s.id)).toEqual([plan]);
    expect((await found(alice, 'PLAN')).map((s) => s.id)).toEqual([plan]);
    expect(await found(alice, 'nothing like it')).toEqual([]);
    expect(await found(alice, '')).toHaveLength(3);
    expect((await found(bob, 'plan')).map((s) => s.title)).toEqual(['my quarterly plan']);
  });

  it('GET /v1/runs/{id}: status, agent, tool calls, tokens per model, answer, error; another user’s run is 404', async () => {
    const call = await listening();
    const alice = await h.token('alice');
    const bob = await h.token('bob');
    const id = await session(call, alice, 'runs');
    const runId = await h.store.runs.start({
      sessionId: id,
      userId: 'alice',
      model: 'scripted:test',
      agent: { name: 'helper', digest: 'a'.repeat(64) },
    });
    const journal = await h.store.runs.journal(runId);
    await journal.started({ id: 'call-1', name: 'read_file', skill: 'files' });
    await journal.finished({
      id: 'call-1',
      ok: false,
      durationMs: 5,
      truncated: false,
      error: 'no such file',
    });
    await h.store.runs.finish(runId, {
      status: 'error',
      inputTokens: 30,
      outputTokens: 12,
      usage: [
        { model: 'scripted:test', inputTokens: 20, outputTokens: 10 },
        { model: 'scripted:fast', inputTokens: 10, outputTokens: 2 },
      ],
      answer: 'I could not read it.',
      error: 'the model failed',
    });

    const response = await call(`/v1/runs/${runId}`, alice);
    expect(response.status).toBe(200);
    const run = (await response.json()) as Json;
    expect(run).toMatchObject({
      id: runId,
      sessionId: id,
      status: 'error',
      agent: { name: 'helper' },
      inputTokens: 30,
      outputTokens: 12,
      usage: [
        { model: 'scripted:test', inputTokens: 20, outputTokens: 10 },
        { model: 'scripted:fast', inputTokens: 10, outputTokens: 2 },
      ],
      answer: 'I could not read it.',
      error: 'the model failed',
      toolCalls: [
        { callId: 'call-1', name: 'read_file', skill: 'files', status: 'error', error: 'no such file' },
      ],
    });

    for (const [token, path] of [
      [bob, `/v1/runs/${runId}`],
      [alice, `/v1/runs/${runId + 100}`],
      [alice, '/v1/runs/abc'],
      [alice, '/v1/runs/0'],
    ] as const) {
      const refused = await call(path, token);
      expect(refused.status, path).toBe(404);
      const { error } = (await refused.json()) as { error: Json };
      expect(error.code).toBe('not-found');
      expect(String(error.message)).not.toContain('alice');
    }
  });

  it('GET /v1/runs filters by status, agent, time and parent, and pages back with `before`', async () => {
    const call = await listening();
    const alice = await h.token('alice');
    const id = await session(call, alice, 'runs');
    const ids: number[] = [];
    for (const [status, agent] of [
      ['ok', 'helper'],
      ['error', 'helper'],
      ['ok', 'other'],
    ] as const) {
      const runId = await h.store.runs.start({
        sessionId: id,
        userId: 'alice',
        agent: { name: agent, digest: 'd'.repeat(64) },
      });
      await h.store.runs.finish(runId, { status });
      ids.push(runId);
    }
    const runs = async (query: string) =>
      ((await (await call(`/v1/runs?${query}`, alice)).json()) as { runs: Json[] }).runs.map((r) => r.id);
    expect(await runs('status=ok')).toEqual([ids[2], ids[0]]);
    expect(await runs('agent=helper')).toEqual([ids[1], ids[0]]);
    expect(await runs('agent=helper&status=ok')).toEqual([ids[0]]);
    expect(await runs(`before=${ids[2]}&limit=1`)).toEqual([ids[1]]);
    expect(await runs(`since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual(
      [],
    );
    expect(
      await runs(`since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`),
    ).toHaveLength(3);
    // A subagent's run is listed under its parent, and left out of the top-level log.
    const child = await h.store.runs.start({ sessionId: id, userId: 'alice', parentRunId: ids[0]! });
    await h.store.runs.finish(child, { status: 'ok' });
    expect(await runs(`parent=${ids[0]}`)).toEqual([child]);
    expect(await runs('parent=none')).toEqual([ids[2], ids[1], ids[0]]);
    expect((await call('/v1/runs?parent=x', alice)).status).toBe(400);
    expect((await call('/v1/runs?status=finished', alice)).status).toBe(400);
    expect((await call('/v1/runs?since=yesterday', alice)).status).toBe(400);
  });

  it('GET /v1/tasks and DELETE /v1/tasks/{id}: the caller’s tasks only; another user cannot cancel them', async () => {
    const call = await listening();
    const alice = await h.token('alice');
    const bob = await h.token('bob');
    const daily = await h.store.tasks.create({
      userId: 'alice',
      prompt: 'digest',
      schedule: '0 9 * * *',
      agent: 'helper',
    });
    const once = await h.store.tasks.create({
      userId: 'alice',
      prompt: 'remind me',
      at: new Date('2030-01-01T09:00:00Z'),
    });
    await h.store.tasks.create({ userId: 'bob', prompt: 'bob’s', every: 60 });

    const tasks = async (token: string, query = '') =>
      ((await (await call(`/v1/tasks${query}`, token)).json()) as { tasks: Json[] }).tasks;
    expect(await tasks(alice)).toEqual([
      expect.objectContaining({
        id: daily.id,
        prompt: 'digest',
        schedule: '0 9 * * *',
        agent: 'helper',
        status: 'active',
      }),
      expect.objectContaining({
        id: once.id,
        prompt: 'remind me',
        at: '2030-01-01T09:00:00.000Z',
        status: 'active',
      }),
    ]);
    expect((await tasks(bob)).map((t) => t.prompt)).toEqual(['bob’s']);

    const stolen = await call(`/v1/tasks/${daily.id}`, bob, { method: 'DELETE' });
    expect(stolen.status).toBe(404);
    expect((await h.store.tasks.get(daily.id, 'alice'))?.status).toBe('active');

    expect((await call(`/v1/tasks/${daily.id}`, alice, { method: 'DELETE' })).status).toBe(204);
    expect((await tasks(alice)).map((t) => t.id)).toEqual([once.id]);
    expect(await tasks(alice, '?all=true')).toEqual([
      expect.objectContaining({ id: daily.id, status: 'cancelled', endedAt: expect.any(String) }),
      expect.objectContaining({ id: once.id, status: 'active' }),
    ]);
    // Cancelled already, missing, malformed: 404.
    for (const id of [String(daily.id), '999', 'x'])
      expect((await call(`/v1/tasks/${id}`, alice, { method: 'DELETE' })).status, id).toBe(404);
  });

  it('PUT /v1/sessions/{id}/skills switches skills within the policy; beyond it 403 and nothing changes', async () => {
    const call = await listening();
    const alice = await h.token('alice');
    const bob = await h.token('bob');
    const id = await session(call, alice, 'skills');
    const put = (token: string, json: unknown) =>
      call(`/v1/sessions/${id}/skills`, token, { method: 'PUT', json });

    const on = await put(alice, { enable: ['notes'], disable: ['shell'] });
    expect(on.status).toBe(200);
    expect(await on.json()).toEqual({ enabled: ['notes'], disabled: ['shell'] });

    const beyond = await put(alice, { enable: ['shell'] });
    expect(beyond.status).toBe(403);
    expect(((await beyond.json()) as { error: Json }).error.code).toBe('skill-not-allowed');
    expect(await h.store.grants.get(id, 'alice')).toMatchObject({ enabled: ['notes'], disabled: ['shell'] });

    expect((await put(alice, { enable: ['nope'] })).status).toBe(400);
    expect((await put(alice, { enable: ['notes'], disable: ['notes'] })).status).toBe(400);
    expect((await put(bob, { disable: ['notes'] })).status).toBe(404);
    expect(await h.store.grants.get(id, 'alice')).toMatchObject({ enabled: ['notes'], disabled: ['shell'] });

    const off = await put(alice, { disable: ['notes'] });
    expect(await off.json()).toEqual({ enabled: [], disabled: ['shell', 'notes'] });

    // Not under a running turn: the lease is the session's.
    const lease = await h.store.leases.acquire(id);
    try {
      const busy = await put(alice, { enable: ['notes'] });
      expect(busy.status).toBe(409);
      expect(((await busy.json()) as { error: Json }).error.code).toBe('session-busy');
    } finally {
      await lease.release();
    }
  });

  it('GET /v1/agents lists the agents the runtime allows', async () => {
    const call = await listening();
    const response = await call('/v1/agents', await h.token('alice'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ agents: [{ name: 'helper', description: 'Helps.' }] });
  });
});
