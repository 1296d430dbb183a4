// Checkpointer benchmark on PostgreSQL, the same shape as @birdie/store's: one thread, N turns of a real
// StateGraph. Each turn: a ~200-character human message and a ~200-character AI answer; every fifth turn the AI
// first calls a tool and gets a ~200-character result back. The human message carries an id, as birdie's agent and
// runner give it one before the turn (`newId('human')` in @birdie/graph), so the graph's input and the message list
// hold the same message.
//   A  @birdie/store-postgres checkpointer          + MessagesDeltaValue   (what birdie runs)
//   L  LangGraph's PostgresSaver (checkpoint-postgres) + MessagesDeltaValue (the candidate it was measured against)
//   S  LangGraph's PostgresSaver                     + stock MessagesValue  (informational; BENCH_ONLY=S)
// A throw-away server (initdb + pg_ctl on a unix socket, PostgreSQL's default durability: fsync and
// synchronous_commit on) holds each saver's tables in a schema of its own.
// "save+load ms/turn": wall time during which at least one saver call of the turn was pending (the union of
// their intervals: LangGraph overlaps writes with the next step), median and mean over the 20 turns up to the
// mark (turns 1-10 for 10). "server CPU ms/turn": user+system CPU of the server's processes over the same turns,
// from /proc. Size: pg_total_relation_size (heap, TOAST and indexes) summed over every table in the saver's schema:
// for A that is all of birdie's tables (sessions, run log, tokens, … ~20 mostly empty ones, about 0.4 MB), not only
// the checkpointer's; for L, LangGraph's four.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { startPostgres } from '@birdie/test-utils';
import { HumanMessage } from '@langchain/core/messages';
import { MessagesDeltaValue, MessagesValue } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import { buildGraph, rawBytes, reseed, text } from '../../store/bench/graph.mjs';

const MARKS = [10, 100, 500, 1000];
const TURNS = Number(process.env.BENCH_TURNS ?? 1000);
const WINDOW = 20;
const ONLY = process.env.BENCH_ONLY ?? 'AL';

const server = await startPostgres({ settings: {} });
const admin = new pg.Pool({ connectionString: server.url, max: 1 });

/** Wraps a saver so that the wall time its calls are pending is measured as a union of intervals. */
function timed(saver) {
  const clock = { busySince: 0, pending: 0, total: 0 };
  const enter = () => {
    if (clock.pending++ === 0) clock.busySince = performance.now();
  };
  const leave = () => {
    if (--clock.pending === 0) clock.total += performance.now() - clock.busySince;
  };
  for (const name of ['getTuple', 'put', 'putWrites', 'getDeltaChannelHistory']) {
    const original = saver[name].bind(saver);
    saver[name] = async (...args) => {
      enter();
      try {
        return await original(...args);
      } finally {
        leave();
      }
    };
  }
  const list = saver.list.bind(saver);
  saver.list = async function* (...args) {
    enter();
    try {
      yield* list(...args);
    } finally {
      leave();
    }
  };
  return clock;
}

/** User + system CPU of every process of the server (the postmaster's children), in ms. */
function serverCpuMs() {
  const pid = Number(readFileSync(`${server.dir}/data/postmaster.pid`, 'utf8').split('\n')[0]);
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    if (Number(entry) !== pid && ppid !== pid) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

async function relationBytes(schema) {
  const { rows } = await admin.query(
    `SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [schema],
  );
  return Number(rows[0].bytes);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function run(label, turns, open) {
  reseed();
  const schema = `bench_${label[0].toLowerCase()}_${Date.now()}`;
  const { saver, close, messages } = await open(schema);
  const clock = timed(saver);
  const app = buildGraph(saver, messages);
  const config = { configurable: { thread_id: '2026-11-21_1' } };
  const rows = [];
  const started = performance.now();
  const marks = label === 'warm-up' ? [] : [...new Set([...MARKS.filter((m) => m <= turns), turns])];
  const window = [];
  for (let turn = 1; turn <= turns; turn += 1) {
    const mark = marks.find((m) => turn > m - WINDOW && turn <= m);
    const before = clock.total;
    const cpu = mark === undefined ? 0 : serverCpuMs();
    const human = new HumanMessage({ id: `human-${randomUUID()}`, content: text(200) });
    const out = await app.invoke({ messages: [human] }, config);
    if (mark === undefined) continue;
    window.push({ saver: clock.total - before, server: serverCpuMs() - cpu });
    if (turn !== mark) continue;
    const taken = window.splice(0);
    const size = await relationBytes(schema);
    const row = {
      label,
      turn,
      messages: out.messages.length,
      raw: rawBytes(out.messages),
      size,
      saver: median(taken.map((w) => w.saver)),
      mean: mean(taken.map((w) => w.saver)),
      server: mean(taken.map((w) => w.server)),
    };
    rows.push(row);
    process.stderr.write(
      `${label} turn ${turn}: ${(size / 1e6).toFixed(2)} MB, saver ${row.saver.toFixed(2)} ms (mean ${row.mean.toFixed(2)}), server CPU ${row.server.toFixed(1)} ms\n`,
    );
  }
  await close();
  return { rows, seconds: (performance.now() - started) / 1000 };
}

const birdie = (messages) => async (schema) => {
  const { openPostgresStore } = await import('../dist/index.js');
  const store = await openPostgresStore({ url: server.url, schema });
  return { saver: store.checkpointer, close: () => store.close(), messages };
};
const langgraph = (messages) => async (schema) => {
  const saver = PostgresSaver.fromConnString(server.url, { schema });
  await saver.setup();
  return { saver, close: () => saver.end(), messages };
};

const SAVERS = {
  A: ['A birdie PostgreSQL + MessagesDeltaValue', birdie(MessagesDeltaValue)],
  L: ['L LangGraph PostgresSaver + MessagesDeltaValue', langgraph(MessagesDeltaValue)],
  S: ['S LangGraph PostgresSaver + MessagesValue', langgraph(MessagesValue)],
};
const results = [];
try {
  // Warm up the JIT (and the server's caches) on every code path first, so turn 10 is not measuring compilation.
  for (const key of ONLY) await run('warm-up', 30, SAVERS[key][1]);
  for (const key of ONLY) results.push(await run(SAVERS[key][0], TURNS, SAVERS[key][1]));
} finally {
  await admin.end();
  await server.stop();
}

const fmt = (n, d = 2) => n.toFixed(d);
const mb = (b) => `${fmt(b / 1e6)} MB`;
console.log(
  '| saver | turns | messages | raw message bytes | size (pg_total_relation_size) | bytes / raw byte | save+load ms/turn (median) | (mean) | vs turn 10 | server CPU ms/turn |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const { rows } of results) {
  const first = rows[0];
  for (const r of rows) {
    console.log(
      `| ${r.label} | ${r.turn} | ${r.messages} | ${r.raw} | ${mb(r.size)} | ${fmt(r.size / r.raw, 1)}× | ${fmt(r.saver)} | ${fmt(r.mean)} | ${fmt(r.saver / first.saver)}× | ${fmt(r.server, 1)} |`,
    );
  }
}
console.log('');
console.log(
  `Run time: ${results.map((r) => `${r.rows[0].label.split(' ')[0]} ${fmt(r.seconds, 1)} s`).join(', ')}.`,
);
console.log(
  `Node ${process.version}, PostgreSQL ${/PostgreSQL\) (\S+)/.exec((await import('node:child_process')).execFileSync('postgres', ['--version']).toString())?.[1]} on a unix socket, one thread; save+load = wall time with a saver call pending, per turn; median (and mean) of the last ${WINDOW} turns up to the mark (turns 1-10 for 10).`,
);
