import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BirdieCheckpointer, openStore, type SqliteStore } from '../src/index.js';
import { tempHome } from './helpers.js';

let home: ReturnType<typeof tempHome>;
let store: SqliteStore;
beforeEach(() => {
  home = tempHome();
  store = openStore({ home: home.dir });
});
afterEach(async () => {
  await store.close();
  home.cleanup();
});

const checkpoint = (n: number) => ({
  v: 4,
  id: `1f000000-0000-6000-8000-${String(n).padStart(12, '0')}`,
  ts: new Date(0).toISOString(),
  channel_values: { notes: `note ${n}` },
  channel_versions: { notes: n },
  versions_seen: {},
});
/** The SQLite store's own checkpointer (its type is LangGraph's base class). */
const saver = () => store.checkpointer as BirdieCheckpointer;
const meta = { source: 'loop' as const, step: 0, parents: {} };

describe('checkpointer.headId', () => {
  it('names the checkpoint getTuple finds newest, without a checkpoint id', async () => {
    const { id } = await store.sessions.create('alice');
    const config = { configurable: { thread_id: id, checkpoint_ns: '' } };
    expect(saver().headId(id)).toBeUndefined();
    for (const n of [1, 2, 3]) {
      await store.checkpointer.put(
        n === 1 ? config : { configurable: { ...config.configurable, checkpoint_id: checkpoint(n - 1).id } },
        checkpoint(n),
        meta,
        { notes: n },
      );
      const tuple = await store.checkpointer.getTuple(config);
      expect(saver().headId(id)).toBe(tuple?.config.configurable?.checkpoint_id);
      expect(saver().headId(id)).toBe(checkpoint(n).id);
    }
    // Another namespace of the thread, and a thread nobody wrote, have none.
    expect(saver().headId(id, 'sub')).toBeUndefined();
    expect(saver().headId('nobody~2026-01-01_1')).toBeUndefined();
  });

  it('on a closed store is the store’s closed error', async () => {
    await store.close();
    expect(() => saver().headId('x')).toThrow(expect.objectContaining({ code: 'closed' }));
    store = openStore({ home: home.dir });
  });
});
