// Side-by-side checkpointer benchmark: one thread, N turns of a real StateGraph.
// Each turn: a ~200-character human message and a ~200-character AI answer; every fifth
// turn the AI first calls a tool and gets a ~200-character result back (a round trip).
//   A  @birdie/store checkpointer + MessagesDeltaValue   (what birdie runs)
//   B  stock SqliteSaver          + stock MessagesValue  (the baseline)
//   C  @birdie/store checkpointer + stock MessagesValue  (informational)
// "save+load ms/turn": process CPU time per turn × the share of V8 CPU-profile samples whose
// stack holds a frame of the saver's package (native SQLite and serializer calls included),
// over the 10 turns ending at the mark. Sampling attributes work to the code that runs it:
// graph code that runs while a saver promise is pending is not counted, and CPU time (not
// wall time) keeps a loaded machine's neighbours out of the figure.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { HumanMessage } from '@langchain/core/messages';
import { MessagesDeltaValue, MessagesValue } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import Database from 'better-sqlite3';
import { openStore } from '../dist/index.js';
import { buildGraph, rawBytes, reseed, text } from './graph.mjs';

const MARKS = [10, 100, 500, 1000];
// The stock saver is quadratic: 1,000 turns take minutes there, so by default it stops at 500.
const STOCK_TURNS = Number(process.env.BENCH_STOCK_TURNS ?? 500);
const TURNS = Number(process.env.BENCH_TURNS ?? 1000);
const WINDOW = 20;

const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.setSamplingInterval', { interval: 200 });

/**
 * Share of the profile's busy samples whose stack holds a frame from a file matching `ownCode`.
 * Shares, not sample durations: on a loaded machine the sampler is starved and durations
 * measure the neighbours; the share times the process CPU time is the saver's CPU time.
 */
function ownShare(profile, ownCode) {
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const memo = new Map();
  const inside = (id) => {
    if (memo.has(id)) return memo.get(id);
    const own = ownCode.test(byId.get(id).callFrame.url);
    const result = own || (parent.has(id) ? inside(parent.get(id)) : false);
    memo.set(id, result);
    return result;
  };
  let own = 0;
  let busy = 0;
  for (const id of profile.samples) {
    if (byId.get(id).callFrame.functionName === '(idle)') continue;
    busy += 1;
    if (inside(id)) own += 1;
  }
  return busy === 0 ? 0 : own / busy;
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
function median(xs) {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function cpuMs(since) {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
}

function fileBytes(file) {
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  let size = statSync(file).size;
  try {
    size += statSync(`${file}-wal`).size;
  } catch {}
  return size;
}

async function run(label, turns, open) {
  reseed();
  const dir = mkdtempSync(join(tmpdir(), 'birdie-bench-'));
  const { saver, file, close, messages, ownCode } = open(dir);
  const app = buildGraph(saver, messages);
  const config = { configurable: { thread_id: '2026-11-21_1' } };
  const wallMs = [];
  const rows = [];
  const started = performance.now();
  const marks = label === 'warm-up' ? [] : [...new Set([...MARKS.filter((m) => m <= turns), turns])];
  const saverMs = [];
  for (let turn = 1; turn <= turns; turn += 1) {
    const mark = marks.find((m) => turn > m - WINDOW && turn <= m);
    if (mark !== undefined) await inspector.post('Profiler.start');
    const t = process.cpuUsage();
    const out = await app.invoke({ messages: [new HumanMessage(text(200))] }, config);
    const cpu = cpuMs(t);
    wallMs.push(cpu);
    if (mark === undefined) continue;
    const { profile } = await inspector.post('Profiler.stop');
    saverMs.push(ownShare(profile, ownCode) * cpu);
    if (turn !== mark) continue;
    const window = saverMs.splice(0);
    const cpus = wallMs.slice(-window.length);
    const raw = rawBytes(out.messages);
    const size = fileBytes(file);
    const row = {
      label,
      turn,
      messages: out.messages.length,
      raw,
      size,
      saver: median(window),
      mean: mean(window),
      wall: median(cpus),
    };
    rows.push(row);
    process.stderr.write(
      `${label} turn ${turn}: ${(size / 1e6).toFixed(2)} MB, saver ${row.saver.toFixed(2)} ms (mean ${row.mean.toFixed(2)})\n`,
    );
  }
  await close();
  rmSync(dir, { recursive: true, force: true });
  return { rows, seconds: (performance.now() - started) / 1000 };
}

const birdie = (messages) => (dir) => {
  const store = openStore({ home: dir });
  return {
    saver: store.checkpointer,
    file: store.file,
    close: () => store.close(),
    messages,
    ownCode: /packages\/store\/dist\//,
  };
};
const stock = (dir) => {
  const file = join(dir, 'stock.db');
  const saver = SqliteSaver.fromConnString(file);
  return {
    saver,
    file,
    close: () => saver.db.close(),
    messages: MessagesValue,
    ownCode: /langgraph-checkpoint-sqlite/,
  };
};

const ONLY = process.env.BENCH_ONLY ?? 'AB';
// Warm up the JIT on every code path first, so turn 10 is not measuring compilation.
for (const open of [birdie(MessagesDeltaValue), stock, birdie(MessagesValue)]) await run('warm-up', 30, open);
const results = [];
if (ONLY.includes('A'))
  results.push(await run('A birdie + MessagesDeltaValue', TURNS, birdie(MessagesDeltaValue)));
if (ONLY.includes('B'))
  results.push(await run('B stock SqliteSaver + MessagesValue', Math.min(TURNS, STOCK_TURNS), stock));
if (ONLY.includes('C'))
  results.push(await run('C birdie + stock MessagesValue', TURNS, birdie(MessagesValue)));

const fmt = (n, d = 2) => n.toFixed(d);
const mb = (b) => `${fmt(b / 1e6)} MB`;
const baseline = new Map(
  (results.find((r) => r.rows[0].label.startsWith('B'))?.rows ?? []).map((r) => [r.turn, r]),
);
console.log(
  '| saver | turns | messages | raw message bytes | file size | bytes / raw byte | save+load ms/turn (median) | (mean) | vs turn 10 | whole turn CPU ms | size vs stock | save+load vs stock |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const { rows } of results) {
  const first = rows[0];
  for (const r of rows) {
    const b = baseline.get(r.turn);
    console.log(
      `| ${r.label} | ${r.turn} | ${r.messages} | ${r.raw} | ${mb(r.size)} | ${fmt(r.size / r.raw, 1)}× | ${fmt(r.saver)} | ${fmt(r.mean)} | ${fmt(r.saver / first.saver)}× | ${fmt(r.wall)} | ${b ? `${fmt(r.size / b.size, 3)}×` : '—'} | ${b ? `${fmt(r.saver / b.saver)}×` : '—'} |`,
    );
  }
}
console.log('');
console.log(
  `Run time: ${results.map((r) => `${r.rows[0].label.split(' ')[0]} ${fmt(r.seconds, 1)} s`).join(', ')}.`,
);
console.log(
  `Node ${process.version}, ${results[0].rows.length ? 'one thread' : ''}, save+load = per turn, process CPU × share of profile samples in the saver's code; median (and mean) of the last ${WINDOW} turns up to the mark (turns 1-10 for 10). Whole turn = median process CPU per turn (graph + saver + GC).`,
);
