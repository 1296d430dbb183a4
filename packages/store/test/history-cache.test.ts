import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
  const chain = store.checkpointer.rows.chain;
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
