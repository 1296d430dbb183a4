import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { BaseMessage } from '@langchain/core/messages';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore as Store, StoreError } from '../src/index.js';
import { chatGraph, flipVisibleBit, summary, tempHome } from './helpers.js';

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

/** A session of `turns` turns through a real graph (a tool round trip every fifth turn). */
async function session(turns: number) {
  const { id } = await store.sessions.create('alice');
  const graph = chatGraph(store.checkpointer);
  const config = { configurable: { thread_id: id } };
  for (let n = 1; n <= turns; n += 1) {
    await graph.invoke({ messages: [{ role: 'user', content: `turn ${n} ${'q'.repeat(200)}` }] }, config);
  }
  const messages = (await graph.getState(config)).values.messages as BaseMessage[];
  return { id, config, messages };
}

/** Flips one bit in the middle of a stored record, as a failing disk or a stray write would. */
function flip(table: string, column: string, key: string[], where: string, params: unknown[] = []): void {
  const db = new Database(store.file);
  const row = db
    .prepare(`SELECT ${key.join(', ')}, ${column} AS data FROM ${table} WHERE ${where}`)
    .get(...params) as Record<string, unknown> & { data: Buffer };
  const data = flipVisibleBit(row.data);
  db.prepare(`UPDATE ${table} SET ${column} = ? WHERE ${key.map((k) => `${k} = ?`).join(' AND ')}`).run(
    data,
    ...key.map((k) => row[k]),
  );
  // SQLite itself sees nothing wrong: only the record's own checksum can tell.
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  db.close();
}

async function rejection(promise: Promise<unknown>): Promise<StoreError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return error as StoreError;
  }
  throw new Error('expected a rejection');
}

describe('a damaged record', () => {
  it('is named (session, step, file); earlier steps read; doctor finds it; repair forks from the last good step', async () => {
    const { id, config, messages } = await session(8);
    const blobs = new Database(store.file, { readonly: true })
      .prepare('SELECT id FROM cp_blobs ORDER BY id')
      .all() as { id: number }[];
    const victim = blobs[Math.floor(blobs.length * 0.6)]!.id;
    flip('cp_blobs', 'data', ['id'], 'id = ?', [victim]);

    // A fresh process has nothing cached: the damage is found on read.
    await store.close();
    store = openStore({ home: home.dir });
    const fresh = chatGraph(store.checkpointer);
    const error = await rejection(fresh.getState(config));
    expect(error.code).toBe('corrupt-record');
    expect(error.file).toBe(store.file);
    expect(error.damage).toMatchObject({
      sessionId: id,
      ns: '',
      table: 'cp_blobs',
      blobId: victim,
      reason: 'checksum mismatch',
    });
    const { checkpointId, seq, taskId, lastGoodCheckpointId } = error.damage!;
    expect(checkpointId).toMatch(/^[0-9a-f-]{36}$/);
    expect(lastGoodCheckpointId).toMatch(/^[0-9a-f-]{36}$/);
    expect(lastGoodCheckpointId! < checkpointId!).toBe(true);
    expect(error.message).toBe(
      `session ${id} has a damaged record at step ${checkpointId} (checkpoint row ${seq}) in ${store.file} (cp_blobs, ${taskId ? `task ${taskId}, ` : ''}value ${victim}: checksum mismatch); it reads fine up to step ${lastGoodCheckpointId}`,
    );

    // Everything before the damage reads: the state at the last good step is a prefix of the history.
    const before = (
      await fresh.getState({ configurable: { thread_id: id, checkpoint_id: lastGoodCheckpointId } })
    ).values.messages as BaseMessage[];
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(messages.length);
    expect(summary(before)).toEqual(summary(messages).slice(0, before.length));
    // list leaves out the checkpoints it cannot decode and yields the others.
    const listed: string[] = [];
    for await (const t of store.checkpointer.list({ configurable: { thread_id: id } }))
      listed.push(t.checkpoint.id);
    expect(listed).toContain(lastGoodCheckpointId);
    expect(listed).not.toContain(checkpointId);

    const report = await store.doctor();
    expect(report).toMatchObject({ ok: false, integrity: ['ok'], location: store.file });
    expect(report.damaged).toEqual([
      {
        sessionId: id,
        ns: '',
        table: 'cp_blobs',
        blobId: victim,
        seq,
        checkpointId,
        reason: 'checksum mismatch',
      },
    ]);
    expect(report.sessions).toMatchObject([
      { sessionId: id, userId: 'alice', damaged: 1, lastGoodCheckpointId },
    ]);
    expect(report.advice.join('\n')).toContain(
      `session ${id}: 1 damaged record(s); it reads fine up to step ${lastGoodCheckpointId}`,
    );

    expect((await rejection(store.sessions.repair(id, 'bob'))).code).toBe('not-owner');
    const repaired = await store.sessions.repair(id, 'alice');
    expect(repaired.head).toBe(lastGoodCheckpointId);
    expect(repaired.quarantined).toContainEqual({
      table: 'cp_blobs',
      ns: '',
      blobId: victim,
      reason: 'checksum mismatch',
    });
    expect(repaired.quarantined).toContainEqual(
      expect.objectContaining({
        table: 'cp_checkpoints',
        checkpointId,
        reason: expect.stringContaining('damaged'),
      }),
    );
    const raw = new Database(store.file, { readonly: true });
    expect(raw.prepare('SELECT COUNT(*) AS n FROM cp_quarantine WHERE thread_id = ?').get(id)).toEqual({
      n: repaired.quarantined.length,
    });
    raw.close();

    // The session continues from the last good step, in this process and in a new one.
    const after = chatGraph(store.checkpointer);
    const headConfig = { configurable: { thread_id: id, checkpoint_id: repaired.head } };
    expect(summary((await after.getState(headConfig)).values.messages)).toEqual(summary(before));
    // Reading the head applies its pending writes (LangGraph does for the latest checkpoint only).
    const head = summary((await after.getState(config)).values.messages);
    expect(head.slice(0, before.length)).toEqual(summary(before));
    await after.invoke({ messages: [{ role: 'user', content: 'after the repair' }] }, config);
    const continued = (await after.getState(config)).values.messages as BaseMessage[];
    expect(summary(continued).slice(0, before.length)).toEqual(summary(before));
    expect(summary(continued).at(-2)).toBe('human:after the repair');
    await store.close();
    store = openStore({ home: home.dir });
    expect(summary((await chatGraph(store.checkpointer).getState(config)).values.messages)).toEqual(
      summary(continued),
    );
    expect((await store.doctor()).ok).toBe(true);
    expect((await store.sessions.repair(id, 'alice')).quarantined).toEqual([]);
  });

  it.each([
    ['cp_checkpoints', 'body', ['seq'], 'body IS NOT NULL ORDER BY seq DESC LIMIT 1'],
    ['cp_writes', 'writes', ['checkpoint', 'task_id'], '1 ORDER BY checkpoint DESC LIMIT 1'],
  ])('in %s is reported as corrupt-record at its step', async (table, column, key, where) => {
    const { id, config } = await session(3);
    flip(table as string, column as string, key as string[], where as string);
    await store.close();
    store = openStore({ home: home.dir });
    const error = await rejection(chatGraph(store.checkpointer).getState(config));
    expect(error.code).toBe('corrupt-record');
    expect(error.damage).toMatchObject({ sessionId: id, table });
    expect(error.damage!.checkpointId).toBeDefined();
    expect(error.damage!.lastGoodCheckpointId).toBeDefined();
    expect(error.message).toContain(`in ${store.file}`);
    const report = await store.doctor();
    expect(report.damaged).toMatchObject([{ sessionId: id, table }]);
    await store.sessions.repair(id, 'alice');
    expect((await chatGraph(store.checkpointer).getState(config)).values.messages.length).toBeGreaterThan(0);
  });

  it('a record without a checksum (written before them) that does not decode is reported too', async () => {
    const { id, config } = await session(2);
    const db = new Database(store.file);
    const { id: blob } = db.prepare('SELECT MAX(id) AS id FROM cp_blobs').get() as { id: number };
    db.prepare('UPDATE cp_blobs SET data = ? WHERE id = ?').run(
      Buffer.from('\u0000{"lc":1,"type":', 'latin1'),
      blob,
    );
    db.close();
    await store.close();
    store = openStore({ home: home.dir });
    const error = await rejection(chatGraph(store.checkpointer).getState(config));
    expect(error.damage).toMatchObject({ sessionId: id, table: 'cp_blobs', blobId: blob });
    expect(error.damage!.reason).toMatch(/^does not decode \(.*JSON/);
  });

  it('grants that do not decode are a corrupt-record of table grants, found by doctor', async () => {
    const { id } = await store.sessions.create('alice');
    await store.grants.set(id, 'alice', { enabled: ['web'], disabled: [] });
    const db = new Database(store.file);
    db.prepare('UPDATE grants SET enabled = ? WHERE session_id = ?').run('["web"', id);
    db.close();
    const error = await (async () => {
      try {
        await store.grants.get(id, 'alice');
      } catch (e) {
        return e as StoreError;
      }
      throw new Error('expected an error');
    })();
    expect(error).toMatchObject({ code: 'corrupt-record', damage: { sessionId: id, table: 'grants' } });
    expect((await store.doctor()).damaged).toMatchObject([{ sessionId: id, table: 'grants' }]);
    await store.grants.set(id, 'alice', { enabled: ['web'], disabled: [] });
    expect((await store.doctor()).ok).toBe(true);
  });
});

/** Overwrites the b-tree page header of `table`'s root page: SQLite then calls the file malformed. */
function breakPageOf(file: string, table: string): void {
  const db = new Database(file);
  const { rootpage } = db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(table) as {
    rootpage: number;
  };
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.close();
  const bytes = readFileSync(file);
  bytes.fill(0xff, (rootpage - 1) * pageSize, (rootpage - 1) * pageSize + 12);
  writeFileSync(file, bytes);
}

describe('a file SQLite calls malformed', () => {
  it('turns read-only at the first sign, for every later process too; reads still work where they can', async () => {
    const s = await store.sessions.create('alice', { title: 'kept' });
    await store.memory.add('alice', 'a note');
    await store.close();
    breakPageOf(store.file, 'memory');

    store = openStore({ home: home.dir });
    expect(store.readOnly).toBeUndefined();
    const malformed = await (async () => {
      try {
        await store.memory.list('alice');
      } catch (e) {
        return e as StoreError;
      }
      throw new Error('expected an error');
    })();
    expect(malformed.code).toBe('malformed');
    expect(malformed.file).toBe(store.file);
    expect(malformed.hint).toContain(`sqlite3 ${store.file} .recover`);
    expect(store.readOnly?.reason).toBe('malformed');
    const write = await (async () => {
      try {
        await store.sessions.create('alice');
      } catch (e) {
        return e as StoreError;
      }
      throw new Error('expected an error');
    })();
    expect(write.code).toBe('read-only');
    expect(write.message).toBe(`cannot write ${store.file}: ${store.readOnly!.message}`);
    expect(write.hint).toBe(store.readOnly!.hint);
    expect(existsSync(`${store.file}.malformed`)).toBe(true);

    // Another process opening the file later writes nothing either, and still lists the sessions.
    await store.close();
    store = openStore({ home: home.dir });
    expect(store.readOnly?.reason).toBe('malformed');
    expect((await store.sessions.list('alice')).map((x) => x.title)).toEqual(['kept']);
    expect((await store.sessions.get(s.id, 'alice'))?.title).toBe('kept');
    await expect(store.sessions.rename(s.id, 'alice', 'x')).rejects.toMatchObject({ code: 'read-only' });
    await expect(store.leases.acquire(s.id)).rejects.toMatchObject({ code: 'read-only' });
    const report = await store.doctor();
    expect(report.ok).toBe(false);
    expect(report.integrity[0]).not.toBe('ok');
    expect(report.advice[0]).toContain('.recover');
  });

  it('a file whose header is not SQLite fails to open with malformed, naming the file and the fix', async () => {
    await store.sessions.create('alice');
    await store.close();
    const bytes = readFileSync(store.file);
    bytes.fill(0x41, 0, 16);
    writeFileSync(store.file, bytes);
    let error: StoreError | undefined;
    try {
      openStore({ home: home.dir });
    } catch (e) {
      error = e as StoreError;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'malformed', file: store.file });
    expect(error!.message).toContain('file is not a database');
    store = openStore({ file: `${home.dir}/other.db` });
  });
});
