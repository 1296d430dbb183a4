import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore } from '../src/index.js';
import { chatGraph, summary, tempHome } from './helpers.js';

// A write transaction trusts the rows it read in earlier ones (a session's lease, its thread, the checkpoints it
// wrote) only while no other connection committed: two stores on one file are two connections, as two processes are.

let home: ReturnType<typeof tempHome>;
let a: SqliteStore;
let b: SqliteStore;

beforeEach(() => {
  home = tempHome();
  a = openStore({ home: join(home.dir, 'birdie') });
  b = openStore({ home: join(home.dir, 'birdie') });
});
afterEach(async () => {
  await a.close();
  await b.close();
  home.cleanup();
});

const say = (store: SqliteStore, thread: string, text: string) =>
  chatGraph(store.checkpointer).invoke(
    { messages: [new HumanMessage(text)] },
    { configurable: { thread_id: thread } },
  );

describe('write caches across connections', () => {
  it('a thread another connection deleted is written again as a new one, readable there', async () => {
    const session = await a.sessions.create('alice');
    await say(a, session.id, 'one');
    await b.checkpointer.deleteThread(session.id);
    await say(a, session.id, 'two');
    const state = await chatGraph(b.checkpointer).getState({ configurable: { thread_id: session.id } });
    expect(summary(state.values.messages)).toEqual(['human:two', 'ai:answer 1: two']);
  });

  it('a lease another connection took after this one wrote stops the next write; its release lets it through', async () => {
    const session = await a.sessions.create('alice');
    await say(a, session.id, 'one');
    const lease = await b.leases.acquire(session.id, { waitMs: 0 });
    await expect(say(a, session.id, 'two')).rejects.toMatchObject({ code: 'session-busy' });
    await lease.release();
    await say(a, session.id, 'three');
    const state = await chatGraph(b.checkpointer).getState({ configurable: { thread_id: session.id } });
    expect(summary(state.values.messages).at(-1)).toBe('ai:answer 2: three');
  });

  it('a lease taken over by another connection is lost at the next write of its old holder', async () => {
    const session = await a.sessions.create('alice');
    const mine = await a.leases.acquire(session.id, { waitMs: 0, ttlMs: 60_000 });
    await say(a, session.id, 'one');
    // Another process finds the row expired (as after a pause longer than the TTL) and takes the session.
    const Database = (await import('better-sqlite3')).default;
    const raw = new Database(a.file);
    raw.prepare('UPDATE leases SET expires_at = 0 WHERE session_id = ?').run(session.id);
    raw.close();
    const theirs = await b.leases.acquire(session.id, { waitMs: 0 });
    await expect(say(a, session.id, 'two')).rejects.toMatchObject({ code: 'lease-lost' });
    await theirs.release();
    await mine.release();
  });

  it('a store opened later continues a thread: the messages it read back are referenced, only new ones stored', async () => {
    const session = await a.sessions.create('alice');
    // The stock channel stores the whole list in every checkpoint: each put names every stored message again.
    const stock = (store: SqliteStore, text: string) =>
      chatGraph(store.checkpointer, false).invoke(
        { messages: [new HumanMessage(text)] },
        { configurable: { thread_id: session.id } },
      );
    const Database = (await import('better-sqlite3')).default;
    const raw = new Database(a.file, { readonly: true });
    // An insert that finds its row stored still uses up an id (AUTOINCREMENT advances `sqlite_sequence` though
    // ON CONFLICT DO NOTHING skips the row): ids handed out beyond the rows count the values inserted twice.
    const blobs = () =>
      raw
        .prepare(
          `SELECT count(*) AS n, (SELECT seq FROM sqlite_sequence WHERE name = 'cp_blobs') AS ids FROM cp_blobs`,
        )
        .get() as { n: number; ids: number };
    await stock(a, `one ${'x'.repeat(200)}`);
    const first = blobs();
    await stock(a, `two ${'y'.repeat(200)}`);
    const before = blobs();
    // What a turn adds in the store that wrote the thread (its caches know every stored message).
    const perTurn = before.n - first.n;
    const later = openStore({ home: join(home.dir, 'birdie') });
    try {
      await stock(later, `three ${'z'.repeat(200)}`);
      const state = await chatGraph(b.checkpointer, false).getState({
        configurable: { thread_id: session.id },
      });
      expect(summary(state.values.messages).map((m) => m.slice(0, 12))).toEqual([
        'human:one xx',
        'ai:answer 1:',
        'human:two yy',
        'ai:answer 2:',
        'human:three ',
        'ai:answer 3:',
      ]);
      // As many new rows as in the store that wrote the thread, and no insert tried for a stored one: the messages
      // read back (`seen`) are looked up first, so no id is used up by an insert that finds its row.
      expect(perTurn).toBeGreaterThan(0);
      expect(before.ids).toBe(before.n);
      expect(blobs()).toEqual({ n: before.n + perTurn, ids: before.n + perTurn });
    } finally {
      await later.close();
      raw.close();
    }
  });
});
