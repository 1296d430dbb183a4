// Where the SQLite side of framework.mjs's second row goes: runs only birdie's store turn (framework-turn.mjs's
// storeTurn, a new session each time) N times after a warm-up, and, beside it in alternation, the same graph on a
// MemorySaver, printing the CPU cost the store path adds per round trip. Run under `node --cpu-prof` to see the store
// path's self time: `node --cpu-prof --cpu-prof-dir=/tmp/prof bench/store-turn-profile.mjs` (after `pnpm build`).
// A third case, also alternating, is the same store turn with the tool journal's start record committed like every
// other commit (`synchronous = NORMAL`, no sync of the WAL to the disk): what the journal's power-cut guarantee costs.
import { closeSync, fdatasyncSync, openSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { birdieGraph, storeTurn, stream } from './framework-turn.mjs';
import { median } from './lib.mjs';
import { makeModel, writeToolSkill } from './peers/agents.mjs';

const N = Number(process.env.BENCH_ROUND_TRIPS ?? 400);
const cpu = async (fn) => {
  const c0 = process.cpuUsage();
  await fn();
  const { user, system } = process.cpuUsage(c0);
  return (user + system) / 1000;
};
// The journal compiles `PRAGMA synchronous = FULL` once and runs it before its start commit; while `unsynced` is set,
// that statement does nothing, so the commit after it is as durable as the checkpoints' (a crash, not a power cut).
const require = createRequire(fileURLToPath(import.meta.resolve('@birdie/store')));
const Database = require('better-sqlite3');
const probe = new Database(':memory:');
const statement = Object.getPrototypeOf(probe.prepare('SELECT 1'));
probe.close();
const run = statement.run;
let unsynced = false;
statement.run = function (...args) {
  if (unsynced && this.source === 'PRAGMA synchronous = FULL') return { changes: 0, lastInsertRowid: 0 };
  return run.apply(this, args);
};
const withoutSync = async (fn) => {
  unsynced = true;
  try {
    return await fn();
  } finally {
    unsynced = false;
  }
};

const dir = await mkdtemp(join(tmpdir(), 'birdie-store-turn-'));
try {
  const toolDir = await writeToolSkill(join(dir, 'tool-skill'));
  const { MemorySaver } = await import('@langchain/langgraph');
  const { openStore } = await import('@birdie/store');
  const store = openStore({ home: join(dir, 'home') });
  const onStore = await birdieGraph((await makeModel()).model, toolDir, store.checkpointer);
  const inMemory = await birdieGraph((await makeModel()).model, toolDir, new MemorySaver());
  const turn = storeTurn(store, onStore);
  const home = join(dir, 'home');
  const wal = openSync(
    `${join(
      home,
      readdirSync(home).find((f) => f.endsWith('.db')),
    )}-wal`,
    'r+',
  );
  const memory = [];
  const sqlite = [];
  const normal = [];
  for (let i = 0; i < 30; i++) {
    await stream(inMemory, `w${i}`);
    await turn(await store.sessions.create('bench'));
  }
  // BENCH_STORE_ONLY=1: the store turns alone (for a profiler that should see nothing else).
  const storeOnly = process.env.BENCH_STORE_ONLY === '1';
  for (let i = 0; i < N; i++) {
    if (!storeOnly) memory.push(await cpu(() => stream(inMemory, `r${i}`)));
    if (storeOnly) {
      const session = await store.sessions.create('bench');
      sqlite.push(await cpu(() => turn(session)));
      continue;
    }
    // A synced start record takes to the disk every page written since the last sync: the unsynced turn's pages are
    // synced after it, untimed, so that each synced turn syncs one turn's pages as it would in use. Which of the two
    // goes first alternates.
    const synced = async () => sqlite.push(await cpu(() => turn(session1)));
    const unsynced = async () => {
      normal.push(await cpu(() => withoutSync(() => turn(session2))));
      fdatasyncSync(wal);
    };
    const session1 = await store.sessions.create('bench');
    const session2 = await store.sessions.create('bench');
    if (i % 2 === 0) {
      await synced();
      await unsynced();
    } else {
      await unsynced();
      await synced();
    }
  }
  const m = storeOnly ? Number.NaN : median(memory);
  const s = median(sqlite);
  console.log(
    `birdie CPU ms per round trip (median of ${N}): MemorySaver ${m.toFixed(2)}, SQLite store turn ${s.toFixed(2)}, store path adds ${(s - m).toFixed(2)}`,
  );
  if (!storeOnly) {
    const n = median(normal);
    console.log(
      `the same store turn with the journal's start commit at synchronous = NORMAL: ${n.toFixed(2)}; the start record's sync to the disk costs ${(s - n).toFixed(2)} (${(((s - n) / s) * 100).toFixed(0)} % of the store turn)`,
    );
  }
  await onStore.close();
  await inMemory.close();
  closeSync(wal);
  await store.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
