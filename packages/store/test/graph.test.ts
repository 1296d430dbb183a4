import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../src/index.js';
import { chatGraph, summary, tempHome } from './helpers.js';

describe('checkpointer with a real StateGraph', () => {
  const homes: ReturnType<typeof tempHome>[] = [];
  afterEach(async () => {
    for (const h of homes.splice(0)) h.cleanup();
  });

  const variants: [boolean | number, string][] = [
    [true, 'MessagesDeltaValue'],
    [4, 'a delta channel snapshotting every 4 updates'],
    [false, 'stock MessagesValue'],
  ];
  for (const [delta, label] of variants) {
    it(`matches MemorySaver over 23 turns with ${label}, and after reopening`, async () => {
      const home = tempHome();
      homes.push(home);
      const store = openStore({ home: home.dir });
      const config = { configurable: { thread_id: '2026-01-01_1' } };
      const ours = chatGraph(store.checkpointer, delta);
      const reference = chatGraph(new MemorySaver(), delta);
      for (let turn = 1; turn <= 23; turn += 1) {
        const input = { messages: [new HumanMessage(`question ${turn}`)] };
        await ours.invoke(input, config);
        await reference.invoke(input, config);
      }
      const expected = summary((await reference.getState(config)).values.messages);
      expect(expected).toHaveLength(23 * 2 + 4 * 2);
      const live = (await ours.getState(config)).values.messages as { id?: string }[];
      expect(summary(live as never)).toEqual(expected);
      await store.close();

      // A new connection has empty caches: everything comes from the file.
      const reopened = openStore({ home: home.dir });
      const again = chatGraph(reopened.checkpointer, delta);
      const reloaded = (await again.getState(config)).values.messages as { id?: string }[];
      expect(summary(reloaded as never)).toEqual(expected);
      // Ids too: the stock reducer assigns them in place after the input was saved without one.
      expect(reloaded.map((m) => m.id)).toEqual(live.map((m) => m.id));
      if (delta === false) expect(reloaded.every((m) => typeof m.id === 'string')).toBe(true);
      const history = [];
      for await (const snapshot of again.getStateHistory(config)) history.push(snapshot);
      const referenceHistory = [];
      for await (const snapshot of reference.getStateHistory(config)) referenceHistory.push(snapshot);
      expect(history.map((s) => summary(s.values.messages ?? []))).toEqual(
        referenceHistory.map((s) => summary(s.values.messages ?? [])),
      );
      await reopened.close();
    });
  }

  it('forks from an earlier checkpoint without mixing branches', async () => {
    const home = tempHome();
    homes.push(home);
    const store = openStore({ home: home.dir });
    const config = { configurable: { thread_id: '2026-01-01_2' } };
    const graph = chatGraph(store.checkpointer);
    for (let turn = 1; turn <= 3; turn += 1)
      await graph.invoke({ messages: [new HumanMessage(`q${turn}`)] }, config);
    const history = [];
    for await (const s of graph.getStateHistory(config)) history.push(s);
    const afterFirst = history.find((s) => s.values.messages?.length === 2 && s.next.length === 0)!;
    await graph.invoke({ messages: [new HumanMessage('other')] }, afterFirst.config);
    const state = await graph.getState(config);
    expect(summary(state.values.messages)).toEqual([
      'human:q1',
      'ai:answer 1: q1',
      'human:other',
      'ai:answer 2: other',
    ]);
    await store.close();
  });
});
