import { createHash } from 'node:crypto';
import { packText } from '@birdie/store/backend';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { describe, expect, inject, it } from 'vitest';
import { MIGRATIONS, openPostgresStore } from '../src/index.js';
import { packedBody, schemaAtMigration, useAdminClient } from './old-database.js';

// Migration 6 (`writes-in-checkpoint-rows`) on a database written before it: each task's writes move from a
// `cp_writes` row into the row of their checkpoint, and values get an 8-byte content key. Every checkpoint, pending
// write and value stored in the old layout reads back the same, and the thread goes on in the new one.
const schema = `oldwrites_${process.pid}`;
const url = inject('postgresUrl');
const admin = useAdminClient();

const record = (p: string, w: unknown[]) => packText(JSON.stringify({ p, w }));
const json = (value: unknown) => ['j', JSON.stringify(value)];

describe('migration writes-in-checkpoint-rows', () => {
  it('reads the checkpoints, pending writes and values an older release stored, and goes on', async () => {
    await schemaAtMigration(admin.client, schema, 5);
    const [parent, child, placeholder, next] = [uuid6(0), uuid6(1), uuid6(2), uuid6(3)];
    const task = uuid6(4);
    const longTask = `task-${'x'.repeat(200)}`; // a key longer than 127 bytes
    const thread = Number(
      (
        await admin.client.query<{ id: string }>(
          `INSERT INTO cp_threads (thread_id, ns) VALUES ('old', '') RETURNING id`,
        )
      ).rows[0]!.id,
    );
    const blobs: number[] = [];
    for (const text of ['hello from the old layout', 'a second message']) {
      const data = JSON.stringify({ text });
      const hash = createHash('sha1').update(data).digest().subarray(0, 12);
      const { rows } = await admin.client.query<{ id: string }>(
        'INSERT INTO cp_blobs (thread, hash, data) VALUES ($1, $2, $3) RETURNING id',
        [thread, hash, packText(data)],
      );
      blobs.push(Number(rows[0]!.id));
    }
    const insert = async (id: string, parentSeq: number | null, ts: string | null, step: number) => {
      const { rows } = await admin.client.query<{ seq: string }>(
        `INSERT INTO cp_checkpoints (thread, checkpoint_id, parent_seq, chans, body)
         VALUES ($1, cp_key($2), $3, E'\\nmessages\\n', $4) RETURNING seq`,
        [
          thread,
          id,
          parentSeq,
          ts === null
            ? null
            : packedBody(ts, step, { messages: ['a', [blobs[0]!, 1]] }, { messages: step + 1 }),
        ],
      );
      return Number(rows[0]!.seq);
    };
    const p = await insert(parent, null, '2026-01-02T03:04:05.678Z', 0);
    const c = await insert(child, p, '2026-01-02T03:04:06.000Z', 1);
    // A step whose writes were stored before the step itself (LangGraph runs the put alongside).
    const h = await insert(placeholder, null, null, 2);
    const big = 'y'.repeat(150); // a record longer than 127 bytes
    const rows: [number, string, Buffer][] = [
      [
        p,
        task,
        record('~__pregel_pull, agent', [
          [0, 'messages', ['a', [blobs[1]!, 1]]],
          [1, 'branch', json(big)],
        ]),
      ],
      [p, 'task-a', record('', [[-1, '__error__', json({ message: 'boom' })]])],
      [p, longTask, record('', [[0, 'messages', json('from a long task id')]])],
      [c, 'task-b', record('', [[-3, '__interrupt__', json([{ value: 'ask' }])]])],
      [h, 'task-c', record('', [[0, 'messages', json('written before its step')]])],
    ];
    for (const [seq, id, writes] of rows) {
      await admin.client.query(
        'INSERT INTO cp_writes (checkpoint, task_id, writes) VALUES ($1, cp_key($2), $3)',
        [seq, id, writes],
      );
    }

    const store = await openPostgresStore({ url, schema });
    try {
      expect((await store.migrationStatus()).current).toBe(MIGRATIONS.length);
      const tables = await admin.client.query<{ name: string }>(
        `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'cp\\_%'
         ORDER BY 1`,
        [schema],
      );
      expect(tables.rows.map((r) => r.name)).toEqual([
        'cp_blobs',
        'cp_checkpoints',
        'cp_quarantine',
        'cp_threads',
      ]);

      const saver = store.checkpointer;
      const config = { configurable: { thread_id: 'old', checkpoint_ns: '' } };
      const at = (id: string) => ({ configurable: { ...config.configurable, checkpoint_id: id } });
      const first = await saver.getTuple(at(parent));
      expect(first?.checkpoint).toMatchObject({
        id: parent,
        ts: '2026-01-02T03:04:05.678Z',
        channel_values: { messages: [{ text: 'hello from the old layout' }] },
        channel_versions: { messages: 1 },
      });
      const expectedWrites = [
        [task, 'messages', [{ text: 'a second message' }]],
        [task, 'branch', big],
        ['task-a', '__error__', { message: 'boom' }],
        [longTask, 'messages', 'from a long task id'],
      ];
      expect(first?.pendingWrites).toHaveLength(expectedWrites.length);
      expect(new Set(first?.pendingWrites?.map((w) => JSON.stringify(w)))).toEqual(
        new Set(expectedWrites.map((w) => JSON.stringify(w))),
      );
      const latest = await saver.getTuple(config);
      expect(latest?.checkpoint.id).toBe(child);
      expect(latest?.parentConfig?.configurable?.checkpoint_id).toBe(parent);
      expect(latest?.pendingWrites).toEqual([['task-b', '__interrupt__', [{ value: 'ask' }]]]);
      const ids: string[] = [];
      for await (const t of saver.list(config)) ids.push(t.checkpoint.id);
      expect(ids).toEqual([child, parent]);
      const history = await saver.getDeltaChannelHistory({ config: at(child), channels: ['messages'] });
      expect(history.messages).toEqual({
        seed: [{ text: 'hello from the old layout' }],
        // In the order a step applies them: task path ('' before '~__pregel_pull, …'), task id, index.
        writes: [
          [longTask, 'messages', 'from a long task id'],
          [task, 'messages', [{ text: 'a second message' }]],
        ],
      });

      // Writes go on merging into the migrated rows: a retried write is stored once, a special one replaces.
      await saver.putWrites(at(parent), [['messages', 'retried']], task);
      await saver.putWrites(at(parent), [['__error__', { message: 'again' }]], 'task-a');
      await saver.putWrites(at(parent), [['messages', 'a new task']], 'task-d');
      const after = await saver.getTuple(at(parent));
      expect(new Set(after?.pendingWrites?.map((w) => JSON.stringify(w)))).toEqual(
        new Set(
          [
            ...expectedWrites.filter(([id]) => id !== 'task-a'),
            ['task-a', '__error__', { message: 'again' }],
            ['task-d', 'messages', 'a new task'],
          ].map((w) => JSON.stringify(w)),
        ),
      );
      // The step written after its writes is put: its writes were kept.
      await saver.put(
        at(child),
        {
          ...emptyCheckpoint(),
          id: placeholder,
          channel_values: { note: 'late' },
          channel_versions: { note: 1 },
        },
        { source: 'loop', step: 2, parents: {} },
        { note: 1 },
      );
      expect((await saver.getTuple(at(placeholder)))?.pendingWrites).toEqual([
        ['task-c', 'messages', 'written before its step'],
      ]);
      await saver.put(
        at(placeholder),
        { ...emptyCheckpoint(), id: next, channel_values: { note: 'new' }, channel_versions: { note: 2 } },
        { source: 'loop', step: 3, parents: {} },
        { note: 2 },
      );
      await saver.putWrites(at(next), [['messages', 'in the new layout']], task);
      expect((await saver.getTuple(config))?.pendingWrites).toEqual([
        [task, 'messages', 'in the new layout'],
      ]);
      const report = await store.doctor();
      expect(report, JSON.stringify(report)).toMatchObject({ ok: true });
    } finally {
      await store.close();
    }
  });
});
