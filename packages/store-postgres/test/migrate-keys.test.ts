import { packText } from '@birdie/store/backend';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { describe, expect, inject, it } from 'vitest';
import { MIGRATIONS, openPostgresStore } from '../src/index.js';
import { packedBody, schemaAtMigration, useAdminClient } from './old-database.js';

// Migration 5 (`compact-checkpoint-keys`) on a database written before it: text ids become key bytes, and every
// checkpoint, pending write and value written by the old layout still reads back the same.
const schema = `oldkeys_${process.pid}`;
const url = inject('postgresUrl');
const admin = useAdminClient();

const record = (value: string) =>
  packText(JSON.stringify({ p: '', w: [[0, 'messages', ['j', JSON.stringify(value)]]] }));

describe('migration compact-checkpoint-keys', () => {
  it('reads the checkpoints, pending writes and values an older release stored', async () => {
    await schemaAtMigration(admin.client, schema, 4);
    const [parent, child] = [uuid6(0), uuid6(1)];
    const task = uuid6(2);
    const threads = (
      await admin.client.query<{ id: string }>(
        `INSERT INTO cp_threads (thread_id, ns) VALUES ('old', ''), ('named', '') RETURNING id`,
      )
    ).rows.map((r) => Number(r.id));
    const blob = (
      await admin.client.query<{ id: string }>(
        `INSERT INTO cp_blobs (thread, hash, data) VALUES ($1, '\\x0102', $2) RETURNING id`,
        [threads[0], packText(JSON.stringify({ text: 'hello from the old layout' }))],
      )
    ).rows[0]!.id;
    const insert = async (thread: number, id: string, parentSeq: number | null, ts: string, step: number) => {
      // Values live in blobs of their own thread; the other thread's are inline.
      const vals =
        thread === threads[0] ? { messages: ['a', [Number(blob), 1]] } : { messages: ['j', `[${step}]`] };
      const { rows } = await admin.client.query<{ seq: string }>(
        `INSERT INTO cp_checkpoints (thread, checkpoint_id, parent_seq, chans, body)
         VALUES ($1, $2, $3, E'\\nmessages\\n', $4) RETURNING seq`,
        [thread, id, parentSeq, packedBody(ts, step, vals, { messages: step + 1 })],
      );
      return Number(rows[0]!.seq);
    };
    const p = await insert(threads[0]!, parent, null, '2026-01-02T03:04:05.678Z', 0);
    await insert(threads[0]!, child, p, '2026-01-02T03:04:06.000Z', 1);
    await admin.client.query(
      'INSERT INTO cp_writes (checkpoint, task_id, writes) VALUES ($1, $2, $3), ($1, $4, $5)',
      [p, task, record('from a uuid task'), 'task-a', record('from a named task')],
    );
    // Ids that are not UUIDs, one of them 15 bytes long (stored with a trailing zero byte).
    const named = ['fifteen-chars-x', 'step-1', 'step-2'];
    let last: number | null = null;
    for (const [i, id] of named.entries())
      last = await insert(threads[1]!, id, last, `2026-01-0${i + 1}T00:00:00Z`, i);

    const store = await openPostgresStore({ url, schema });
    try {
      expect((await store.migrationStatus()).current).toBe(MIGRATIONS.length);
      const saver = store.checkpointer;
      const config = { configurable: { thread_id: 'old', checkpoint_ns: '' } };
      const latest = await saver.getTuple(config);
      expect(latest?.checkpoint).toMatchObject({
        id: child,
        ts: '2026-01-02T03:04:06.000Z',
        channel_values: { messages: [{ text: 'hello from the old layout' }] },
        channel_versions: { messages: 2 },
      });
      expect(latest?.parentConfig?.configurable?.checkpoint_id).toBe(parent);
      const first = await saver.getTuple({ configurable: { ...config.configurable, checkpoint_id: parent } });
      expect(first?.checkpoint.ts).toBe('2026-01-02T03:04:05.678Z');
      expect(new Set(first?.pendingWrites)).toEqual(
        new Set([
          [task, 'messages', 'from a uuid task'],
          ['task-a', 'messages', 'from a named task'],
        ]),
      );
      const ids = async (thread: string) => {
        const out: string[] = [];
        for await (const t of saver.list({ configurable: { thread_id: thread } })) out.push(t.checkpoint.id);
        return out;
      };
      expect(await ids('old')).toEqual([child, parent]);
      expect(await ids('named')).toEqual(['step-2', 'step-1', 'fifteen-chars-x']);
      const fifteen = await saver.getTuple({
        configurable: { thread_id: 'named', checkpoint_id: 'fifteen-chars-x' },
      });
      expect(fifteen?.checkpoint).toMatchObject({
        ts: '2026-01-01T00:00:00Z',
        channel_values: { messages: [0] },
      });

      // The old thread goes on in the new layout: a LangGraph id is 16 bytes in the row.
      const next = {
        ...emptyCheckpoint(),
        id: uuid6(3),
        channel_values: { note: 'new' },
        channel_versions: { note: 1 },
      };
      await saver.put(
        { configurable: { ...config.configurable, checkpoint_id: child } },
        next,
        { source: 'loop', step: 2, parents: {} },
        { note: 1 },
      );
      expect((await saver.getTuple(config))?.checkpoint).toMatchObject({ id: next.id, ts: next.ts });
      expect(await ids('old')).toEqual([next.id, child, parent]);
      const sizes = await admin.client.query<{ n: number }>(
        `SELECT octet_length(c.checkpoint_id) AS n FROM ${schema}.cp_checkpoints c
         JOIN ${schema}.cp_threads t ON t.id = c.thread WHERE t.thread_id = 'old' ORDER BY c.seq`,
      );
      expect(sizes.rows.map((r) => r.n)).toEqual([16, 16, 16]);
      const report = await store.doctor();
      expect(report, JSON.stringify(report)).toMatchObject({ ok: true });
    } finally {
      await store.close();
    }
  });
});
