import { openStore, type Store, StoreError } from '@birdie/store';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventStream } from '../src/event-stream.js';
import { TurnRecorder } from '../src/turn-recorder.js';

// A worker marks the turns it runs alive (an empty append moves `updatedAt`) from their first event until their end
// is recorded, so a follower on another worker never takes a live worker's silent turn for a lost one; and stops once
// the turn is over, so a turn nobody will end is found lost.
describe('TurnRecorder marks its turn alive', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  const streams: EventStream[] = [];
  beforeEach(async () => {
    const dir = await makeTempDir('birdie-recorder-');
    store = openStore({ home: dir.path });
    cleanup = dir.cleanup;
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await store.close();
    await cleanup();
  });

  async function recorded() {
    const session = await store.sessions.create('alice');
    const { turn } = await store.turns.begin({ sessionId: session.id, userId: 'alice' });
    const stream = new EventStream();
    streams.push(stream);
    const errors: unknown[] = [];
    const recorder = new TurnRecorder(store, turn.id, stream, {
      tokenFlushMs: 5,
      endRetryMs: 5,
      aliveMs: 10,
      onError: (error) => errors.push(error),
    });
    const updated = async () => (await store.turns.get(turn.id, 'alice'))!.updatedAt.getTime();
    return { turn, recorder, updated, errors };
  }

  /** Waits until the turn's `updatedAt` has moved past `since` (a beat came). */
  async function beaten(updated: () => Promise<number>, since: number) {
    await vi.waitFor(
      async () => {
        if ((await updated()) <= since) throw new Error('no beat yet');
      },
      { timeout: 30_000, interval: 5 },
    );
  }

  /** Whether `updatedAt` stays as it is for ten beats. */
  async function stillFor(updated: () => Promise<number>): Promise<boolean> {
    const before = await updated();
    await new Promise((resolve) => setTimeout(resolve, 100));
    return (await updated()) === before;
  }

  it('not before its first event; while silent after it; no more once its end is recorded', async () => {
    const { turn, recorder, updated, errors } = await recorded();
    expect(await stillFor(updated)).toBe(true);
    expect((await store.turns.get(turn.id, 'alice'))!.state).toBe('starting');
    recorder.push({ type: 'session', id: turn.sessionId });
    await vi.waitFor(async () => expect((await store.turns.get(turn.id, 'alice'))!.state).toBe('running'));
    await beaten(updated, await updated());
    await recorder.end('ok', [{ type: 'done', status: 'ok' }]);
    expect(await stillFor(updated)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('no more once abandoned (the turn was refused, or its handling failed): it can be found lost', async () => {
    const { turn, recorder, updated } = await recorded();
    recorder.push({ type: 'session', id: turn.sessionId });
    await beaten(updated, await updated());
    recorder.abandon();
    expect(await stillFor(updated)).toBe(true);
    // A push after it starts nothing either.
    recorder.push({ type: 'token', text: 'late' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await stillFor(updated)).toBe(true);
  });

  it('while its end is retried after the store refused it, until the end is recorded', async () => {
    const { turn, recorder, updated } = await recorded();
    recorder.push({ type: 'session', id: turn.sessionId });
    await beaten(updated, await updated());
    const end = store.turns.end;
    // The database away (a lock it will let go of) until the test says it is back.
    let away = true;
    store.turns.end = async (...args) => {
      if (away) throw new StoreError('locked', 'database is locked');
      return end(...args);
    };
    await recorder.end('ok', [{ type: 'done', status: 'ok' }]);
    expect((await store.turns.get(turn.id, 'alice'))!.state).toBe('running');
    await beaten(updated, await updated());
    away = false;
    await vi.waitFor(async () => expect((await store.turns.get(turn.id, 'alice'))!.state).toBe('ended'), {
      timeout: 30_000,
    });
    expect(await stillFor(updated)).toBe(true);
  });
});
