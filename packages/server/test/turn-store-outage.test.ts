import { StoreError } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { blocksOf, events, useServer } from './helpers.js';

// Exploratory report (ops, item 1): a turn whose store call failed mid-turn (the runtime ends it `error`, its reason in
// the summary only) ended its stream `done`/`result` status error with no `error` event; and when the store could not
// record the turn's end, the log was later closed by a follower as a lost worker's turn. The real PostgreSQL outage
// through `birdie serve` is apps/cli/test/serve-pg-outage.test.ts; here the store's failures are scripted.

describe('a turn the store failed under', () => {
  // A follower would end a silent turn as lost after this long: the worker must record the end before.
  const h = useServer({ eventPollMs: 20, lostTurnMs: 10_000 });

  async function session(): Promise<{ token: string; id: string }> {
    const token = await h.token();
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    return { token, id };
  }

  it('gets an error event saying why before its done and result (the disk filled up mid-turn)', async () => {
    const { token, id } = await session();
    h.runtime.script = async ({ handlers }) => {
      handlers.onEvent({ type: 'token', text: 'hi' });
      handlers.onEvent({ type: 'done', status: 'error' });
      return {
        status: 'error',
        inputTokens: 3,
        outputTokens: 1,
        errorCode: 'disk-full',
        error: 'the disk holding /srv/birdie/birdie.db is full (0 B free)',
      };
    };
    const live = await events(await h.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'hi' } }));
    expect(live.map((e) => e.type)).toEqual(['session', 'token', 'error', 'done', 'result']);
    const error = live[2] as unknown as { error: { code: string; message: string } };
    expect(error.error.code).toBe('unavailable');
    expect(error.error.message).toMatch(/^the disk holding the database is full, so the turn ended;/);
    // The operator's words (the file's path) stay in the run log.
    expect(error.error.message).not.toContain('/srv');
    expect(live.slice(3)).toEqual([
      { type: 'done', status: 'error' },
      { type: 'result', status: 'error', session: id, inputTokens: 3, outputTokens: 1 },
    ]);
    const replay = await events(await h.request(`/v1/sessions/${id}/events`, { token }));
    expect(replay.map((e) => e.type)).toEqual(['session', 'token', 'error', 'done', 'result']);
    expect(replay[2]).toEqual(error);
  });

  it('sends no second error when the turn said why itself', async () => {
    const { token, id } = await session();
    h.runtime.script = async ({ handlers }) => {
      handlers.onEvent({ type: 'error', error: { code: 'rate-limited', message: 'slow down' } } as never);
      handlers.onEvent({ type: 'done', status: 'error' });
      return { status: 'error', inputTokens: 0, outputTokens: 0, errorCode: 'rate-limited' };
    };
    const live = await events(await h.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'hi' } }));
    expect(live.map((e) => e.type)).toEqual(['session', 'error', 'done', 'result']);
    expect(live[1]).toMatchObject({ error: { code: 'rate-limited' } });
  });

  it('records its end once the database is back: a replay ends with the same error, not with a lost worker', async () => {
    const { token, id } = await session();
    // The store's turn log, unreachable while `down`.
    let down = false;
    const turns = h.store.turns;
    const append = turns.append.bind(turns);
    const end = turns.end.bind(turns);
    const unreachable = () =>
      new StoreError('unavailable', 'cannot reach the database server db.internal:5432');
    let refusedEnds = 0;
    turns.append = async (...args) => {
      if (down) throw unreachable();
      return append(...args);
    };
    turns.end = async (...args) => {
      if (down) {
        // Back after a few attempts, while the worker keeps trying.
        if (++refusedEnds === 3) down = false;
        throw unreachable();
      }
      return end(...args);
    };
    h.runtime.script = async ({ handlers }) => {
      // The turn's `session` event is recorded; then the database goes away.
      while ((await h.store.turns.events(id, 'alice', { afterId: 0, limit: 1 })).length === 0)
        await new Promise((resolve) => setImmediate(resolve));
      down = true;
      handlers.onEvent({ type: 'token', text: 'lost words' });
      handlers.onEvent({ type: 'done', status: 'error' });
      return { status: 'error', inputTokens: 2, outputTokens: 2, errorCode: 'unavailable' };
    };
    const response = await h.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'hi' } });
    const live = blocksOf(await response.text()).filter((b) => b.event);
    expect(live.map((b) => b.event!.type)).toEqual(['session', 'token', 'error', 'done', 'result']);
    // What the store could not take went out without an id: nothing a client resumes from.
    expect(live.slice(1).every((b) => b.id === undefined)).toBe(true);
    const error = live[2]!.event as unknown as { error: { code: string; message: string } };
    expect(error.error).toEqual({
      code: 'unavailable',
      message:
        'the database could not be reached, so the turn ended; the steps it completed before are in the session; events sent without an id were not recorded (a replay goes without them); try again once the server is ready',
    });

    // A follower waits for the turn's end, which this worker records as soon as the store takes it.
    const replay = blocksOf(await (await h.request(`/v1/sessions/${id}/events`, { token })).text());
    expect(replay.map((b) => b.event?.type)).toEqual(['session', 'error', 'done', 'result']);
    expect(replay.every((b) => b.id !== undefined)).toBe(true);
    expect(replay[1]!.event).toEqual(error);
    expect(replay[3]!.event).toEqual({
      type: 'result',
      status: 'error',
      session: id,
      inputTokens: 2,
      outputTokens: 2,
    });
    expect(refusedEnds).toBe(3);
  });
});
