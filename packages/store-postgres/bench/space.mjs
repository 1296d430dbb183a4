// Where the bytes go on PostgreSQL: `node bench/space.mjs [turns]` (after `pnpm build`) runs one thread through the
// store's checkpointer with MessagesDeltaValue and prints each relation's size (heap + TOAST, and each index), and
// the total over every table of the schema (what run.mjs reports). Human messages carry ids as birdie gives them;
// BENCH_NO_IDS=1 leaves them to LangGraph (then the input and the message list hold two copies of each).

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
  await admin.end();
} finally {
  await server.stop();
}
