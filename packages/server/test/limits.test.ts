import type { Store } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { events, gate, type Harness, requestOf, type Script, useServer } from './helpers.js';

// Per-user turn limits (issue 27), counted in the store's run log: they hold across workers on one store.

type ErrorBody = { error: { code: string; message: string } };

/** Scripts the runtime's turns as the CLI's do them: each logs a run, and (when gated) waits before ending it. */
function loggedTurns(h: Harness, wait?: Promise<void>, started?: () => void): void {
  h.runtime.script = async ({ session, handlers }) => {
    const run = await h.store.runs.start({ sessionId: session.id, userId: session.userId });
    started?.();
    if (wait) await wait;
    await h.store.runs.finish(run, { status: 'ok' });
    handlers.onEvent({ type: 'done', status: 'ok' });
    return { status: 'ok', inputTokens: 0, outputTokens: 0 };
  };
}

const session = async (h: Harness, token: string) =>
  ((await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string }).id;

describe('concurrent turns per user', () => {
  const limits = { concurrentTurns: 1 };
  const h = useServer({ limits });

  it('a turn over the limit is 429 concurrent-turns-limit, on this worker and another; other users go on', async () => {
    const alice = await h.token('alice');
    const bob = await h.token('bob');
    const [first, second] = [await session(h, alice), await session(h, alice)];
    const release = gate();
    const started = gate();
    loggedTurns(h, release.promise, started.open);
    const running = await h.request(`/v1/sessions/${first}/turns`, { token: alice, json: { prompt: 'one' } });
    expect(running.status).toBe(200);
    await started.promise;

    const refused = await h.request(`/v1/sessions/${second}/turns`, {
      token: alice,
      json: { prompt: 'two' },
    });
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as ErrorBody;
    expect(body.error.code).toBe('concurrent-turns-limit');
    expect(body.error.message).toContain('concurrent turns limit');
    // Another worker on the same store counts the same runs.
    const other = h.worker({ limits });
    const elsewhere = await requestOf(other.server, `/v1/sessions/${second}/turns`, {
      token: alice,
      json: { prompt: 'two' },
    });
    expect(elsewhere.status).toBe(429);
    expect(((await elsewhere.json()) as ErrorBody).error.code).toBe('concurrent-turns-limit');

    // Bob has his own count.
    loggedTurns(h);
    const bobs = await h.request(`/v1/sessions/${await session(h, bob)}/turns`, {
      token: bob,
      json: { prompt: 'mine' },
    });
    expect(bobs.status).toBe(200);
    expect((await events(bobs)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });

    release.open();
    expect((await events(running)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    const after = await h.request(`/v1/sessions/${second}/turns`, { token: alice, json: { prompt: 'two' } });
    expect(after.status).toBe(200);
    await events(after);
  });

  it('two turns of one user sent at the same moment: exactly one starts, the other is refused; then a new one starts', async () => {
    const alice = await h.token('alice');
    const [first, second, third] = [
      await session(h, alice),
      await session(h, alice),
      await session(h, alice),
    ];
    // Both turns hold their session's lease before either logs its run: a count of running runs sees none.
    const release = gate();
    h.runtime.script = async ({ session: s, handlers }) => {
      await release.promise;
      const run = await h.store.runs.start({ sessionId: s.id, userId: s.userId });
      await h.store.runs.finish(run, { status: 'ok' });
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 0, outputTokens: 0 };
    };
    const both = await Promise.all(
      [first, second].map((id) =>
        h.request(`/v1/sessions/${id}/turns`, { token: alice, json: { prompt: 'at once' } }),
      ),
    );
    const started = both.filter((r) => r.status === 200);
    const refused = both.filter((r) => r.status !== 200);
    expect(refused.map((r) => r.status)).toEqual([429]);
    const body = (await refused[0]!.json()) as ErrorBody;
    expect(body.error.code).toBe('concurrent-turns-limit');
    expect(body.error.message).toContain('concurrent turns limit');
    expect(started).toHaveLength(1);

    release.open();
    expect((await events(started[0]!)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    const after = await h.request(`/v1/sessions/${third}/turns`, { token: alice, json: { prompt: 'next' } });
    expect(after.status).toBe(200);
    expect((await events(after)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
  });

  it('a turn gives its slot back however it ends: failed, cancelled', async () => {
    const alice = await h.token('alice');
    const id = await session(h, alice);
    const next = async () => {
      loggedTurns(h);
      const turn = await h.request(`/v1/sessions/${id}/turns`, { token: alice, json: { prompt: 'next' } });
      expect(turn.status).toBe(200);
      expect((await events(turn)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    };
    h.runtime.script = async () => {
      throw new Error('the tool broke');
    };
    const failed = await h.request(`/v1/sessions/${id}/turns`, { token: alice, json: { prompt: 'fail' } });
    expect(failed.status).toBe(200);
    expect((await events(failed)).at(-1)).toMatchObject({ type: 'result', status: 'error' });
    await next();

    const started = gate();
    h.runtime.script = async ({ handlers }) => {
      started.open();
      await new Promise<void>((resolve) => handlers.signal.addEventListener('abort', () => resolve()));
      handlers.onEvent({ type: 'done', status: 'cancelled' });
      return { status: 'cancelled', inputTokens: 0, outputTokens: 0 };
    };
    const long = await h.request(`/v1/sessions/${id}/turns`, { token: alice, json: { prompt: 'long' } });
    await started.promise;
    const cancelled = await h.request(`/v1/sessions/${id}/cancel`, { token: alice, method: 'POST' });
    expect(cancelled.status).toBe(202);
    expect((await events(long)).at(-1)).toMatchObject({ type: 'result', status: 'cancelled' });
    await next();
  });

  it('a run a dead process left running does not hold a slot: it is reaped, and the turn starts', async () => {
    const alice = await h.token('alice');
    const id = await session(h, alice);
    // A run logged by another process that is gone (it holds no lease): still `running` in the log.
    const other = h.worker();
    const orphan = await other.store.runs.start({ sessionId: id, userId: 'alice' });
    expect((await h.store.runs.get(orphan, 'alice'))?.status).toBe('running');
    loggedTurns(h);
    const turn = await h.request(`/v1/sessions/${id}/turns`, { token: alice, json: { prompt: 'go' } });
    expect(turn.status).toBe(200);
    expect((await events(turn)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    expect((await h.store.runs.get(orphan, 'alice'))?.status).toBe('died');
  });
});

describe('turns per minute per user', () => {
  const limits = { turnsPerMinute: 2 };
  const h = useServer({ limits });

  it('the turn after the limit is 429 turns-per-minute-limit with Retry-After, on any worker; other users go on', async () => {
    const alice = await h.token('alice');
    const bob = await h.token('bob');
    const id = await session(h, alice);
    loggedTurns(h);
    for (const prompt of ['one', 'two']) {
      const turn = await h.request(`/v1/sessions/${id}/turns`, { token: alice, json: { prompt } });
      expect(turn.status).toBe(200);
      await events(turn);
    }
    for (const server of [h.server, h.worker({ limits }).server]) {
      const refused = await requestOf(server, `/v1/sessions/${id}/turns`, {
        token: alice,
        json: { prompt: 'x' },
      });
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      const body = (await refused.json()) as ErrorBody;
      expect(body.error.code).toBe('turns-per-minute-limit');
      expect(body.error.message).toContain('turns per minute limit');
    }
    // An approval's continuation starts a run too, so it is refused the same way (before anything resumes).
    h.runtime.pending = [
      { id: 'call-1', digest: 'd', tool: 't', args: {}, description: 'd', reason: 'approval-required' },
    ];
    const approval = await h.request(`/v1/sessions/${id}/approvals`, {
      token: alice,
      json: { decisions: { 'call-1': { type: 'approve' } } },
    });
    expect(approval.status).toBe(429);
    h.runtime.pending = [];

    const bobs = await h.request(`/v1/sessions/${await session(h, bob)}/turns`, {
      token: bob,
      json: { prompt: 'mine' },
    });
    expect(bobs.status).toBe(200);
    await events(bobs);
  });
});

describe('turns per minute per user, sent at the same moment', () => {
  const limits = { turnsPerMinute: 2 };
  const h = useServer({ limits });

  it('of five turns of one user sent at once, on two workers, two start and three are refused with Retry-After', async () => {
    const alice = await h.token('alice');
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await session(h, alice));
    // Every turn holds its session's lease before any logs its run: a count of the run log sees none of them.
    const release = gate();
    // Each worker logs its turns' runs in its own store (the one holding the session's lease).
    const script =
      (store: Store): Script =>
      async ({ session: s, handlers }) => {
        await release.promise;
        const run = await store.runs.start({ sessionId: s.id, userId: s.userId });
        await store.runs.finish(run, { status: 'ok' });
        handlers.onEvent({ type: 'done', status: 'ok' });
        return { status: 'ok', inputTokens: 0, outputTokens: 0 };
      };
    const other = h.worker({ limits });
    h.runtime.script = script(h.store);
    other.runtime.script = script(other.store);
    const answers = await Promise.all(
      ids.map((id, i) =>
        requestOf(i % 2 ? other.server : h.server, `/v1/sessions/${id}/turns`, {
          token: alice,
          json: { prompt: 'at once' },
        }),
      ),
    );
    release.open();
    const started = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status !== 200);
    expect(refused.map((r) => r.status)).toEqual([429, 429, 429]);
    for (const r of refused) {
      const retryAfter = Number(r.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(((await r.json()) as ErrorBody).error.code).toBe('turns-per-minute-limit');
    }
    expect(started).toHaveLength(2);
    for (const r of started) expect((await events(r)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
  });
});

describe('turns per minute per user, a turn refused after its admission', () => {
  const limits = { turnsPerMinute: 2 };
  const h = useServer({ limits });

  it('takes no place in the minute: turns refused as session-busy do not count', async () => {
    const alice = await h.token('alice');
    const [busy, free] = [await session(h, alice), await session(h, alice)];
    // Another process writes the session: its turns are admitted, then refused (409) before any run starts.
    const other = h.worker();
    const lease = await other.store.leases.acquire(busy);
    for (let i = 0; i < 3; i++) {
      const refused = await h.request(`/v1/sessions/${busy}/turns`, { token: alice, json: { prompt: 'x' } });
      expect(refused.status).toBe(409);
    }
    await lease.release();
    loggedTurns(h);
    for (const prompt of ['one', 'two']) {
      const turn = await h.request(`/v1/sessions/${free}/turns`, { token: alice, json: { prompt } });
      expect(turn.status).toBe(200);
      await events(turn);
    }
    const third = await h.request(`/v1/sessions/${free}/turns`, { token: alice, json: { prompt: 'three' } });
    expect(third.status).toBe(429);
    expect(((await third.json()) as ErrorBody).error.code).toBe('turns-per-minute-limit');
  });
});

describe('no limits configured', () => {
  const h = useServer();

  it('turns are not counted', async () => {
    const alice = await h.token('alice');
    const id = await session(h, alice);
    loggedTurns(h);
    for (let i = 0; i < 3; i++) {
      const turn = await h.request(`/v1/sessions/${id}/turns`, { token: alice, json: { prompt: `n${i}` } });
      expect(turn.status).toBe(200);
      await events(turn);
    }
  });
});
