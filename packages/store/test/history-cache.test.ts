import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryCache } from '../src/checkpointer/history-walk.js';
import type { BirdieCheckpointer } from '../src/checkpointer/saver.js';
import { openStore, type SqliteStore } from '../src/index.js';
import { chatGraph, summary, tempHome } from './helpers.js';

// A server holds every session in one store. A turn's history load walks back only to the checkpoint whose history
// the session's previous turn computed, so the cache of those histories has to survive the other sessions' turns in
// between: their writes (row ids count across sessions) and their number.

let home: ReturnType<typeof tempHome>;
let store: SqliteStore;

beforeEach(() => {
  home = tempHome();
  store = openStore({ home: join(home.dir, 'birdie') });
});
afterEach(async () => {
  await store.close();
  home.cleanup();
});

/** Counts the checkpoints each history load visits on its walk up the thread. */
function countVisits(): { take(): number } {
  const chain = (store.checkpointer as BirdieCheckpointer).rows.chain;
  const iterate = chain.iterate.bind(chain);
  let visited = 0;
  chain.iterate = ((...args: Parameters<typeof iterate>) => {
    const rows = iterate(...args);
    return (function* () {
      for (const row of rows) {
        visited += 1;
        yield row;
      }
    })();
  }) as typeof chain.iterate;
  return {
    take() {
      const n = visited;
      visited = 0;
      return n;
    },
  };
}

describe('history cache across sessions', () => {
  it("with 40 sessions taking turns in one store, each turn walks only the checkpoints since the session's last", async () => {
    const graph = chatGraph(store.checkpointer);
    const sessions = Array.from({ length: 40 }, (_, i) => `session-${i}`);
    const say = (thread: string, text: string) =>
      graph.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: thread } });
    const rounds = ['one', 'two', 'three', 'four', 'five'];
    for (const text of rounds) for (const thread of sessions) await say(thread, text);
    const visits = countVisits();
    const walked: number[] = [];
    for (const thread of sessions) {
      await say(thread, 'six');
      walked.push(visits.take());
    }
    // The walk visits the checkpoints since the session's previous load and stops at the one whose history is
    // cached: five for this graph, at any length. Without the cache it walks back to the last stored value, further
    // every turn (16 at this length).
    expect(Math.max(...walked)).toBeLessThanOrEqual(5);
    const state = await graph.getState({ configurable: { thread_id: 'session-7' } });
    // Five turns of two messages, the fifth's tool call and its result, and this turn's two.
    expect(summary(state.values.messages).slice(-2)).toEqual(['human:six', 'ai:answer 6: six']);
    expect(state.values.messages).toHaveLength(14);
  });
});

describe('HistoryCache', () => {
  const histories = () => new Map([['messages', { hasSeed: false, writes: [] }]]);

  it("keeps one entry a thread: a busy session's turns do not push out another session's history", () => {
    const cache = new HistoryCache();
    cache.set(1, histories(), 'quiet', '');
    for (let seq = 2; seq < 2000; seq++) cache.set(seq, histories(), 'busy', '');
    expect(cache.get(1)).toBeDefined();
    expect(cache.get(1998)).toBeUndefined();
    expect(cache.get(1999)).toBeDefined();
  });

  it("drops a thread's history on a write before it, and only that thread's; a number id is its text", () => {
    const cache = new HistoryCache();
    cache.set(10, histories(), 'a', '');
    cache.set(20, histories(), 'b', '');
    cache.set(30, histories(), 7, '');
    cache.invalidateAfter(5, 'a', '');
    cache.invalidateAfter(25, '7', '');
    expect(cache.get(10)).toBeUndefined();
    expect(cache.get(20)).toBeDefined();
    expect(cache.get(30)).toBeUndefined();
    // Another namespace of a thread (a subgraph's) is another thread of checkpoints.
    cache.set(40, histories(), 'b', 'child');
    cache.invalidateAfter(1, 'b', 'child');
    expect(cache.get(20)).toBeDefined();
  });
});
