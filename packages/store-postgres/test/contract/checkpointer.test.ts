import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver, Overwrite } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { chatGraph, summary } from '../../../store/test/helpers.js';
import { backends } from '../backends.js';
import { useBackend } from './harness.js';

const meta = { source: 'loop' as const, step: 0, parents: {} };
const id = (n: number) => `1f000000-0000-6000-8000-${String(n).padStart(12, '0')}`;
function checkpoint(n: number, values: Record<string, unknown> = {}) {
  const versions = Object.fromEntries(Object.keys(values).map((k) => [k, n]));
  return {
    config: versions,
    checkpoint: {
      v: 4,
      id: id(n),
      ts: new Date(0).toISOString(),
      channel_values: values,
      channel_versions: versions,
      versions_seen: {},
    },
  };
}

// The checkpointer of every back end: a real StateGraph against MemorySaver, forks, delta histories, shared values.
describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);

  describe('checkpointer with a real StateGraph', () => {
    const variants: [boolean | number, string][] = [
      [true, 'MessagesDeltaValue'],
      [4, 'a delta channel snapshotting every 4 updates'],
      [false, 'stock MessagesValue'],
    ];
    for (const [delta, label] of variants) {
      it(`matches MemorySaver over 23 turns with ${label}, and after reopening`, async () => {
        const store = t.store;
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
        // A new connection has empty caches: everything comes from the stored records.
        const reopened = await t.env.open();
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
      });
    }

    it('forks from an earlier checkpoint without mixing branches', async () => {
      const store = t.store;
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
    });
  });

  describe('checkpointer records', () => {
    it('recomputes a cached delta history when an ancestor gets more writes', async () => {
      const cp = t.store.checkpointer;
      const root = { configurable: { thread_id: '2026-01-01_1', checkpoint_ns: '' } };
      const a = checkpoint(1, { messages: { lg_name: 'DeltaSnapshot', value: ['seed'] } });
      const c0 = await cp.put(root, a.checkpoint, meta, a.config);
      await cp.putWrites(c0, [['messages', ['one']]], 'task-1');
      const c1 = await cp.put(c0, checkpoint(2).checkpoint, meta, {});
      await cp.putWrites(c1, [['messages', ['two']]], 'task-b');
      const c2 = await cp.put(c1, checkpoint(3).checkpoint, meta, {});

      const first = await cp.getDeltaChannelHistory({ config: c2, channels: ['messages'] });
      expect(first.messages!.seed).toEqual({ lg_name: 'DeltaSnapshot', value: ['seed'] });
      expect(first.messages!.writes.map((w) => w[2])).toEqual([['one'], ['two']]);

      // A late write on c1 (sorted before task-b) must show up, not the cached history.
      await cp.putWrites(c1, [['messages', ['late']]], 'task-a');
      const second = await cp.getDeltaChannelHistory({ config: c2, channels: ['messages'] });
      expect(second.messages!.writes.map((w) => w[2])).toEqual([['one'], ['late'], ['two']]);

      // A descendant reuses the cached prefix and adds only what is new.
      await cp.putWrites(c2, [['messages', ['three']]], 'task-3');
      const c3 = await cp.put(c2, checkpoint(4).checkpoint, meta, {});
      const third = await cp.getDeltaChannelHistory({ config: c3, channels: ['messages', 'other'] });
      expect(third.messages!.writes.map((w) => w[2])).toEqual([['one'], ['late'], ['two'], ['three']]);
      expect(third.other).toEqual({ writes: [] });
    });

    it('starts a delta history at its last Overwrite: the stored value and the writes before it are left out', async () => {
      const cp = t.store.checkpointer;
      const root = { configurable: { thread_id: '2026-01-01_5', checkpoint_ns: '' } };
      const a = checkpoint(1, { messages: { lg_name: 'DeltaSnapshot', value: ['seed'] } });
      const c0 = await cp.put(root, a.checkpoint, meta, a.config);
      await cp.putWrites(c0, [['messages', ['one']]], 'task-1');
      const c1 = await cp.put(c0, checkpoint(2).checkpoint, meta, {});
      await cp.putWrites(c1, [['messages', new Overwrite(['kept'])]], 'task-2');
      const c2 = await cp.put(c1, checkpoint(3).checkpoint, meta, {});
      await cp.putWrites(c2, [['messages', ['three']]], 'task-3');
      const c3 = await cp.put(c2, checkpoint(4).checkpoint, meta, {});

      const expectReset = (history: Awaited<ReturnType<typeof cp.getDeltaChannelHistory>>) => {
        expect(history.messages).not.toHaveProperty('seed');
        const values = history.messages!.writes.map((w) => w[2]);
        expect(values).toHaveLength(2);
        expect(values[0]).toEqual({ __overwrite__: ['kept'] });
        expect(values[1]).toEqual(['three']);
      };
      expectReset(await cp.getDeltaChannelHistory({ config: c3, channels: ['messages'] }));
      // A new connection (empty caches) reads the same from the stored records.
      const reopened = await t.env.open();
      expectReset(await reopened.checkpointer.getDeltaChannelHistory({ config: c3, channels: ['messages'] }));
      // Before the reset, the history is as it was: the stored value and every write.
      const before = await reopened.checkpointer.getDeltaChannelHistory({
        config: c1,
        channels: ['messages'],
      });
      expect(before.messages!.seed).toEqual({ lg_name: 'DeltaSnapshot', value: ['seed'] });
      expect(before.messages!.writes.map((w) => w[2])).toEqual([['one']]);
    });

    it('keeps a parent reference to a checkpoint that was never put, and stops the walk there', async () => {
      const cp = t.store.checkpointer;
      const orphanParent = {
        configurable: { thread_id: '2026-01-01_2', checkpoint_ns: '', checkpoint_id: id(9) },
      };
      await cp.putWrites(orphanParent, [['messages', ['lost']]], 'task');
      const child = await cp.put(orphanParent, checkpoint(10).checkpoint, meta, {});
      const tuple = await cp.getTuple(child);
      expect(tuple?.parentConfig?.configurable?.checkpoint_id).toBe(id(9));
      expect(await cp.getTuple(orphanParent)).toBeUndefined();
      const history = await cp.getDeltaChannelHistory({ config: child, channels: ['messages'] });
      expect(history).toEqual({ messages: { writes: [] } });
    });

    it('stores a repeated message list once: checkpoints reference it', async () => {
      const cp = t.store.checkpointer;
      const messages = Array.from({ length: 50 }, (_, i) => ({
        role: 'user',
        content: `message ${i} ${'x'.repeat(200)}`,
      }));
      let config = { configurable: { thread_id: '2026-01-01_3', checkpoint_ns: '' } } as Record<string, any>;
      for (let n = 1; n <= 20; n += 1) {
        const c = checkpoint(n, { messages: messages.slice(0, 30 + n) });
        config = await cp.put(config, c.checkpoint, meta, c.config);
      }
      const latest = await cp.getTuple(config);
      expect(latest?.checkpoint.channel_values.messages).toEqual(messages);
      expect(Number(await t.env.one('SELECT COUNT(*) AS n FROM cp_blobs'))).toBe(50);
    });

    it('saves correctly after another process deleted and recreated the thread it caches', async () => {
      const thread = '2026-01-01_4';
      const root = { configurable: { thread_id: thread, checkpoint_ns: '' } };
      const messages = [{ content: 'a'.repeat(300) }, { content: 'b'.repeat(300) }];
      const first = checkpoint(1, { messages });
      await t.store.checkpointer.put(root, first.checkpoint, meta, first.config);

      const other = await t.env.open();
      await other.checkpointer.deleteThread(thread);
      const unrelated = checkpoint(2, { messages: [{ content: 'c'.repeat(300) }] });
      await other.checkpointer.put(root, unrelated.checkpoint, meta, unrelated.config);

      // Same objects: this process believes their blobs exist; they were deleted with the thread.
      const again = checkpoint(3, { messages });
      const config = await t.store.checkpointer.put(root, again.checkpoint, meta, again.config);
      expect((await t.store.checkpointer.getTuple(config))?.checkpoint.channel_values).toEqual({ messages });
      const fresh = await t.env.open();
      expect((await fresh.checkpointer.getTuple(config))?.checkpoint.channel_values).toEqual({ messages });
    });
  });
});
