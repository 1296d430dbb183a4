// Where the bytes go on PostgreSQL: `node bench/space.mjs [turns]` (after `pnpm build`) runs one thread through the
// store's checkpointer with MessagesDeltaValue and prints each relation's size (heap + TOAST, and each index), and
// the total over every table of the schema (what run.mjs reports). Human messages carry ids as birdie gives them;
// BENCH_NO_IDS=1 leaves them to LangGraph (then the input and the message list hold two copies of each). Last, the
// updates of cp_checkpoints (a task's writes land in its step's row) and how many were HOT, with the dead row versions
// left (pgstattuple, when the server has it): whether page pruning reclaims the old versions.

import { randomUUID } from 'node:crypto';
import { startPostgres } from '@birdie/test-utils';
import { HumanMessage } from '@langchain/core/messages';
import { MessagesDeltaValue } from '@langchain/langgraph';
import pg from 'pg';
import { buildGraph, rawBytes, reseed, text } from '../../store/bench/graph.mjs';
import { openPostgresStore } from '../dist/index.js';

const turns = Number(process.argv[2] ?? 1000);
const server = await startPostgres();
try {
  const store = await openPostgresStore({ url: server.url, schema: 'space' });
  reseed();
  const app = buildGraph(store.checkpointer, MessagesDeltaValue);
  const config = { configurable: { thread_id: '2026-11-21_1' } };
  let out;
  for (let turn = 1; turn <= turns; turn += 1) {
    const id = process.env.BENCH_NO_IDS ? undefined : `human-${randomUUID()}`;
    out = await app.invoke({ messages: [new HumanMessage({ id, content: text(200) })] }, config);
  }
  await store.close();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  const { rows } = await admin.query(
    `SELECT c.relname, c.relkind, pg_relation_size(c.oid) AS main, pg_total_relation_size(c.oid) AS total,
            c.reltuples::bigint AS tuples
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'space' AND c.relkind IN ('r', 'i') ORDER BY pg_total_relation_size(c.oid) DESC`,
  );
  const raw = rawBytes(out.messages);
  console.log(`${turns} turns, ${out.messages.length} messages, ${raw} raw message bytes`);
  const total = rows.filter((r) => r.relkind === 'r').reduce((n, r) => n + Number(r.total), 0);
  console.log(`all tables: ${(total / 1024).toFixed(0)} KiB, ${(total / raw).toFixed(2)} per raw byte`);
  console.log('| relation | kind | size | per raw byte |');
  console.log('|---|---|---:|---:|');
  for (const r of rows) {
    const bytes = Number(r.relkind === 'r' ? r.total : r.main);
    console.log(
      `| ${r.relname} | ${r.relkind === 'r' ? 'table (total)' : 'index'} | ${(bytes / 1024).toFixed(0)} KiB | ${(bytes / raw).toFixed(2)} |`,
    );
  }
  // Counters reach the statistics when the store's sessions end.
  while (
    (
      await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'",
      )
    ).rows[0].n > 1
  )
    await new Promise((resolve) => setTimeout(resolve, 20));
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const stats = (
    await admin.query(
      `SELECT n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE schemaname = 'space' AND relname = 'cp_checkpoints'`,
    )
  ).rows[0];
  let dead = '';
  try {
    await admin.query('CREATE EXTENSION IF NOT EXISTS pgstattuple SCHEMA public');
    const t = (
      await admin.query(
        `SELECT dead_tuple_count, dead_tuple_len, free_space FROM public.pgstattuple('space.cp_checkpoints')`,
      )
    ).rows[0];
    dead = `; dead versions left: ${t.dead_tuple_count} (${t.dead_tuple_len} bytes), free space ${t.free_space} bytes`;
  } catch {
    dead = '; (no pgstattuple on this server)';
  }
  console.log(
    `cp_checkpoints: ${stats.n_tup_ins} inserts, ${stats.n_tup_upd} updates, ${stats.n_tup_hot_upd} of them HOT${dead}`,
  );
  await admin.end();
} finally {
  await server.stop();
}
