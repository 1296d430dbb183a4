import { openStore, type Store } from '@birdie/store';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { blocksOf } from '../test/helpers.js';
import { EventStream } from './event-stream.js';
import { TurnRecorder } from './turn-recorder.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function storeWithTurn(): Promise<{ store: Store; turnId: number; sessionId: string }> {
  const dir = await makeTempDir('birdie-recorder-');
  const store = openStore({ home: dir.path });
  cleanups.push(
    () => dir.cleanup(),
    () => store.close(),
  );
  const session = await store.sessions.create('alice');
  const { turn } = await store.turns.begin({ sessionId: session.id, userId: 'alice' });
  return { store, turnId: turn.id, sessionId: session.id };
}

describe('TurnRecorder', () => {
  it('records a burst of events in one append, in order, and tokens of one agent as one event', async () => {
    const { store, turnId, sessionId } = await storeWithTurn();
    let appends = 0;
    const counting = {
      ...store,
      turns: {
        ...store.turns,
        append: (id: number, events: never[]) => {
          appends += 1;
          return store.turns.append(id, events);
        },
      },
    } as Store;
    const live = new EventStream(60_000);
    const recorder = new TurnRecorder(counting, turnId, live, { tokenFlushMs: 60_000, onError: () => {} });
    recorder.push({ type: 'session', id: sessionId });
    recorder.push({ type: 'token', text: 'a' });
    recorder.push({ type: 'token', text: 'b' });
    recorder.push({ type: 'token', text: 'c', agent: ['helper'] });
    recorder.push({ type: 'done', status: 'ok' });
    await recorder.end('ok', [{ type: 'result', status: 'ok' }]);
    live.close();
    expect((await store.turns.events(sessionId, 'alice')).map((e) => e.event)).toEqual([
      { type: 'session', id: sessionId },
      { type: 'token', text: 'ab' },
      { type: 'token', text: 'c', agent: ['helper'] },
      { type: 'done', status: 'ok' },
      { type: 'result', status: 'ok' },
    ]);
    // One synchronous burst and the end: one transaction, the end's (no append at all).
    expect(appends).toBe(0);
    expect((await store.turns.get(turnId, 'alice'))?.status).toBe('ok');
    const sent = blocksOf(await new Response(live.body).text());
    expect(sent.map((b) => b.event?.type ?? `id ${b.id !== undefined}`)).toEqual([
      'session',
      'token',
      'token',
      'id true',
      'token',
      'id true',
      'done',
      'result',
    ]);
  });

  it('writes the events of one step of the event loop in one append, and sends them once written', async () => {
    const { store, turnId, sessionId } = await storeWithTurn();
    let appends = 0;
    const counting = {
      ...store,
      turns: {
        ...store.turns,
        append: (id: number, events: never[]) => {
          appends += 1;
          return store.turns.append(id, events);
        },
      },
    } as Store;
    const live = new EventStream(60_000);
    const recorder = new TurnRecorder(counting, turnId, live, { tokenFlushMs: 60_000, onError: () => {} });
    recorder.push({ type: 'message', text: 'one' });
    await Promise.resolve();
    recorder.push({ type: 'usage', inputTokens: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(appends).toBe(1);
    recorder.push({ type: 'done', status: 'ok' });
    await recorder.end('ok', [{ type: 'result', status: 'ok' }]);
    live.close();
    expect(appends).toBe(1);
    expect((await store.turns.events(sessionId, 'alice')).map((e) => [e.id, e.event.type])).toEqual([
      [1, 'message'],
      [2, 'usage'],
      [3, 'done'],
      [4, 'result'],
    ]);
    const sent = blocksOf(await new Response(live.body).text());
    expect(sent.map((b) => [b.id, b.event?.type])).toEqual([
      [1, 'message'],
      [2, 'usage'],
      [3, 'done'],
      [4, 'result'],
    ]);
  });

  it('a store that fails: the client still gets every event (without ids), the failure is reported once', async () => {
    const { store, turnId } = await storeWithTurn();
    const failing = {
      ...store,
      turns: {
        ...store.turns,
        append: () => Promise.reject(new Error('down')),
        end: () => Promise.reject(new Error('down')),
      },
    } as unknown as Store;
    const errors: unknown[] = [];
    const live = new EventStream(60_000);
    const recorder = new TurnRecorder(failing, turnId, live, {
      tokenFlushMs: 1,
      onError: (e) => errors.push(e),
    });
    recorder.push({ type: 'session' });
    recorder.push({ type: 'token', text: 'x' });
    await recorder.end('ok', [{ type: 'result', status: 'ok' }]);
    live.close();
    const sent = blocksOf(await new Response(live.body).text());
    expect(sent).toEqual([
      { event: { type: 'session' } },
      { event: { type: 'token', text: 'x' } },
      { event: { type: 'result', status: 'ok' } },
    ]);
    expect(errors).toHaveLength(1);
  });
});
