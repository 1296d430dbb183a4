import type { StoreReadiness } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { events, gate, useServer } from './helpers.js';

// GET /v1/ready (issue 27): the readiness probe next to /v1/health (liveness). The store's own checks are tested on
// both back ends in @birdie/store-postgres' contract tests, and on a PostgreSQL server that goes away there.

describe('GET /v1/ready', () => {
  const h = useServer({ version: '1.2.3' });

  it('is 200 while the store is reachable, current and writable; no token needed', async () => {
    const response = await h.request('/v1/ready');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', version: '1.2.3', store: 'sqlite' });
  });

  it("is 503 with the reason when the store cannot serve, worded without the store's internals", async () => {
    // A store whose server went away: its own reason names the server; the probe's answer does not.
    const down: StoreReadiness = {
      ready: false,
      code: 'unavailable',
      reason:
        'cannot reach the database server postgresql://birdie:***@db.internal:5432/birdie: connect ECONNREFUSED',
    };
    Object.assign(h.store, { ready: async () => down });
    const response = await h.request('/v1/ready');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      status: 'not-ready',
      version: '1.2.3',
      store: 'sqlite',
      reason: { code: 'unavailable', message: 'the store cannot be reached' },
    });
    expect(text).not.toMatch(/db\.internal|postgresql|ECONNREFUSED/);
    // Liveness is another question: the worker is up.
    expect((await h.request('/v1/health')).status).toBe(200);
  });

  it('is 503 once the store is closed', async () => {
    await h.store.close();
    const response = await h.request('/v1/ready');
    expect(response.status).toBe(503);
    expect(((await response.json()) as { reason: unknown }).reason).toEqual({
      code: 'closed',
      message: 'the store is closed',
    });
  });

  it('is 503 "shutting-down" while the worker drains its turns, so a balancer stops sending it requests', async () => {
    const token = await h.token();
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    const release = gate();
    h.runtime.script = async ({ handlers }) => {
      await release.promise;
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 0, outputTokens: 0 };
    };
    const running = await h.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'hold' } });
    const closing = h.server.close({ graceMs: 60_000 });
    const response = await h.request('/v1/ready');
    expect(response.status).toBe(503);
    expect(((await response.json()) as { reason: unknown }).reason).toEqual({
      code: 'shutting-down',
      message: 'this worker is shutting down; send requests to another',
    });
    release.open();
    expect((await events(running)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    expect(await closing).toEqual({ finished: 1, cancelled: 0 });
  });
});
