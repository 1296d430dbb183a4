import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPostgresStore } from '../src/index.js';

// LangGraph runs a step's put alongside the putWrites of its tasks, and both store the step's new messages. Two
// workers (two pools, so nothing in one process orders them) doing that on every step must never deadlock: the
// server would break the cycle after deadlock_timeout (1 s) and the store would retry, so the test reads the
// server's deadlock counter for a database of its own.
const url = inject('postgresUrl');
const database = `deadlocks_${process.pid}`;
const dbUrl = url.replace('/postgres?', `/${database}?`);
let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
});
afterAll(async () => {
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
});

/** The server's count of deadlocks in the test's database, once its sessions have ended and reported. */
async function deadlocks(): Promise<number> {
  for (;;) {
    const { rows } = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'",
      [database],
    );
    if (rows[0]!.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await admin.query<{ n: string }>(
    'SELECT deadlocks AS n FROM pg_stat_database WHERE datname = $1',
    [database],
  );
  return Number(rows[0]!.n);
}

describe('a put and the writes of its step at once', () => {
  it('never deadlock, and every step keeps its writes', { timeout: 120_000 }, async () => {
    const first = await openPostgresStore({ url: dbUrl, schema: 'race' });
    const second = await openPostgresStore({ url: dbUrl, schema: 'race' });
    const steps = 40;
    const ids = Array.from({ length: steps }, (_, i) => uuid6(i));
    const tasks = Array.from({ length: steps }, (_, i) => uuid6(1000 + i));
    try {
      const thread = { thread_id: 'race', checkpoint_ns: '' };
      let parent: string | undefined;
      const messages: unknown[] = [];
      for (let step = 0; step < steps; step += 1) {
        const fresh = [
          new HumanMessage({ id: `human-${step}`, content: `question ${step} `.repeat(20) }),
          new AIMessage({ id: `ai-${step}`, content: `answer ${step} `.repeat(20) }),
        ];
        messages.push(...fresh);
        const checkpoint = {
          ...emptyCheckpoint(),
          id: ids[step]!,
          channel_values: { messages: [...messages] },
          channel_versions: { messages: step + 1 },
        };
        const at = { configurable: { ...thread, checkpoint_id: checkpoint.id } };
        await Promise.all([
          first.checkpointer.put(
            { configurable: { ...thread, ...(parent ? { checkpoint_id: parent } : {}) } },
            checkpoint,
            { source: 'loop', step, parents: {} },
            { messages: step + 1 },
          ),
          second.checkpointer.putWrites(at, [['messages', fresh]], tasks[step]!),
        ]);
        parent = checkpoint.id;
      }
      for (let step = 0; step < steps; step += 1) {
        const tuple = await first.checkpointer.getTuple({
          configurable: { ...thread, checkpoint_id: ids[step]! },
        });
        expect(tuple?.checkpoint.channel_values.messages).toHaveLength(2 * (step + 1));
        expect(tuple?.pendingWrites?.map(([task, channel]) => [task, channel])).toEqual([
          [tasks[step]!, 'messages'],
        ]);
      }
    } finally {
      await first.close();
      await second.close();
    }
    expect(await deadlocks()).toBe(0);
  });
});
