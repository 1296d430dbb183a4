import { describe, expect, it } from 'vitest';
import { events, gate, requestOf, type Script, useServer } from './helpers.js';

// Issue 27: "a turn is submitted once". A client whose stream was cut resends the turn with the same
// Idempotency-Key and gets that turn (finished, or running: its events so far, then the rest), never a second run
// of its tools; on any worker.
describe('Idempotency-Key on POST …/turns', () => {
  const h = useServer({ eventPollMs: 20 });
  const newSession = async (token: string) =>
    ((await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string }).id;

  /** A turn that runs one tool (counted), optionally waiting at `hold` while the tool runs. */
  const toolTurn = (counter: { runs: number }, hold?: Promise<void>, started?: () => void): Script => {
    return async ({ handlers }) => {
      handlers.onEvent({ type: 'tool-start', id: 'call_1', name: 'append', args: {} } as never);
      counter.runs += 1;
      started?.();
      if (hold) await hold;
      handlers.onEvent({ type: 'tool-end', id: 'call_1', name: 'append', ok: true, output: 'x' } as never);
      handlers.onEvent({ type: 'token', text: 'Do' });
      handlers.onEvent({ type: 'token', text: 'ne.' });
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 3, outputTokens: 4 };
    };
  };
  const post = (id: string, token: string, key: string | undefined, prompt = 'append a line') =>
    h.request(`/v1/sessions/${id}/turns`, {
      token,
      json: { prompt },
      headers: key === undefined ? {} : { 'Idempotency-Key': key },
    });

  it('a resend of a finished turn with the same key returns that turn and does not run its tool again', async () => {
    const token = await h.token();
    const id = await newSession(token);
    const counter = { runs: 0 };
    h.runtime.script = toolTurn(counter);
    const first = await events(await post(id, token, 'turn-0001'));
    expect(first.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    const again = await post(id, token, 'turn-0001');
    expect(again.status).toBe(200);
    expect(again.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const replayed = await events(again);
    expect(counter.runs).toBe(1);
    // The same turn: its events as recorded (the two tokens coalesced into one), ending with the same result.
    expect(replayed.map((e) => e.type)).toEqual([
      'session',
      'tool-start',
      'tool-end',
      'token',
      'done',
      'result',
    ]);
    expect(replayed.find((e) => e.type === 'token')).toEqual({ type: 'token', text: 'Done.' });
    expect(replayed.at(-1)).toEqual(first.at(-1));
    // Another key (or none) is another turn.
    await events(await post(id, token, 'turn-0002'));
    expect(counter.runs).toBe(2);
    await events(await post(id, token, undefined));
    expect(counter.runs).toBe(3);
  });

  it('a resend while the turn runs (the stream was cut) follows that turn on another worker: what happened, then the rest', async () => {
    const token = await h.token();
    const id = await newSession(token);
    const counter = { runs: 0 };
    const release = gate();
    const started = gate();
    h.runtime.script = toolTurn(counter, release.promise, started.open);
    const cut = await post(id, token, 'k-cut');
    await started.promise;
    await cut.body!.cancel();
    const other = h.worker({ eventPollMs: 20 });
    const resent = requestOf(other.server, `/v1/sessions/${id}/turns`, {
      token,
      json: { prompt: 'append a line' },
      headers: { 'Idempotency-Key': 'k-cut' },
    });
    const response = await resent;
    expect(response.status).toBe(200);
    release.open();
    const list = await events(response);
    expect(counter.runs).toBe(1);
    expect(list.map((e) => e.type)).toEqual(['session', 'tool-start', 'tool-end', 'token', 'done', 'result']);
    expect(list.at(-1)).toMatchObject({ type: 'result', status: 'ok', session: id });
  });

  it('two requests with one key at once, on two workers, make one turn; both streams tell its end', async () => {
    const token = await h.token();
    const id = await newSession(token);
    const counter = { runs: 0 };
    const release = gate();
    h.runtime.script = toolTurn(counter, release.promise);
    const other = h.worker({ eventPollMs: 20 });
    other.runtime.script = toolTurn(counter, release.promise);
    const both = Promise.all([
      post(id, token, 'k-race'),
      requestOf(other.server, `/v1/sessions/${id}/turns`, {
        token,
        json: { prompt: 'append a line' },
        headers: { 'Idempotency-Key': 'k-race' },
      }),
    ]);
    setTimeout(() => release.open(), 100);
    const responses = await both;
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    const lists = await Promise.all(responses.map(events));
    expect(counter.runs).toBe(1);
    for (const list of lists) expect(list.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
  });

  it('the same key with another body is 422 idempotency-key-reused; a malformed key is 400', async () => {
    const token = await h.token();
    const id = await newSession(token);
    const counter = { runs: 0 };
    h.runtime.script = toolTurn(counter);
    await events(await post(id, token, 'k-body', 'first prompt'));
    const reused = await post(id, token, 'k-body', 'another prompt');
    expect(reused.status).toBe(422);
    const { error } = (await reused.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('idempotency-key-reused');
    expect(error.message).toContain('k-body');
    expect(counter.runs).toBe(1);
    for (const bad of ['with space', 'x'.repeat(256)]) {
      const response = await post(id, token, bad);
      expect(response.status, bad).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid-request');
    }
    expect(counter.runs).toBe(1);
  });

  it('the key is scoped to the user and the session: another session, or another user, does not see it', async () => {
    const alice = await h.token('alice');
    const bob = await h.token('bob');
    const counter = { runs: 0 };
    h.runtime.script = toolTurn(counter);
    const a1 = await newSession(alice);
    const a2 = await newSession(alice);
    const b1 = await newSession(bob);
    await events(await post(a1, alice, 'shared'));
    await events(await post(a2, alice, 'shared'));
    await events(await post(b1, bob, 'shared'));
    expect(counter.runs).toBe(3);
  });

  it('a key whose turn was refused (409, the session busy) is free again: nothing ran under it', async () => {
    const token = await h.token();
    const id = await newSession(token);
    const release = gate();
    const started = gate();
    const counter = { runs: 0 };
    h.runtime.script = toolTurn(counter, release.promise, started.open);
    const running = await post(id, token, 'k-a');
    await started.promise;
    const refused = await post(id, token, 'k-b');
    expect(refused.status).toBe(409);
    release.open();
    await events(running);
    h.runtime.script = toolTurn(counter);
    const list = await events(await post(id, token, 'k-b'));
    expect(list.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    expect(counter.runs).toBe(2);
  });
});
