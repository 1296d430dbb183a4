import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore as Store } from '../src/index.js';
import { tempHome } from './helpers.js';

let home: ReturnType<typeof tempHome>;
let store: Store;
beforeEach(async () => {
  home = tempHome();
  store = openStore({ home: home.dir });
});
afterEach(async () => {
  await store.close();
  home.cleanup();
});

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

describe('BirdieCheckpointer', () => {
  it('recomputes a cached delta history when an ancestor gets more writes', async () => {
    const cp = store.checkpointer;
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

  it('keeps a parent reference to a checkpoint that was never put, and stops the walk there', async () => {
    const cp = store.checkpointer;
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
    const cp = store.checkpointer;
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
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(store.file, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM cp_blobs').get()).toEqual({ n: 50 });
    db.close();
  });

  it('saves correctly after another process deleted and recreated the thread it caches', async () => {
    const thread = '2026-01-01_4';
    const root = { configurable: { thread_id: thread, checkpoint_ns: '' } };
    const messages = [{ content: 'a'.repeat(300) }, { content: 'b'.repeat(300) }];
    const first = checkpoint(1, { messages });
    await store.checkpointer.put(root, first.checkpoint, meta, first.config);

    const other = openStore({ file: store.file });
    await other.checkpointer.deleteThread(thread);
    const unrelated = checkpoint(2, { messages: [{ content: 'c'.repeat(300) }] });
    await other.checkpointer.put(root, unrelated.checkpoint, meta, unrelated.config);
    await other.close();

    // Same objects: this process believes their blobs exist; they were deleted with the thread.
    const again = checkpoint(3, { messages });
    const config = await store.checkpointer.put(root, again.checkpoint, meta, again.config);
    expect((await store.checkpointer.getTuple(config))?.checkpoint.channel_values).toEqual({ messages });
    const fresh = openStore({ file: store.file });
    expect((await fresh.checkpointer.getTuple(config))?.checkpoint.channel_values).toEqual({ messages });
    await fresh.close();
  });
});
