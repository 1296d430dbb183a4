// framework.mjs's two round trips (MemorySaver; SQLite with birdie's store turn against `SqliteSaver`) measured the way
// issue 36's side-by-side run measured them: each side in its own process, the processes alternating. framework.mjs runs both agents in one process, where each side also
// pays for the other's garbage (process.cpuUsage counts V8's collector threads) and for LangChain's and LangGraph's
// shared code being compiled for both callers' shapes; here neither side sees the other.
//   node bench/framework-apart.mjs            the table row (BENCH_APART_ROUNDS rounds of BENCH_APART_TRIPS each)
//   node bench/framework-apart.mjs --side S --saver V   one child: S = birdie | langchain, V = memory | sqlite; prints
//                                                       its CPU and wall ms per call as JSON
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { birdieGraph, langchainAgent, storeTurn, stream } from './framework-turn.mjs';
import { median } from './lib.mjs';
import { makeModel, writeToolSkill } from './peers/agents.mjs';

const ROUNDS = Number(process.env.BENCH_APART_ROUNDS ?? 8);
const TRIPS = Number(process.env.BENCH_APART_TRIPS ?? 300);
// More warm-up than framework.mjs's 30: each child starts cold, and V8 optimises a function only after many calls.
const WARMUP = 300;

const ROWS = [
  { saver: 'memory', what: 'round trip, new thread, MemorySaver, each side in its own process', limit: 1.1 },
  {
    saver: 'sqlite',
    what: 'round trip, new session, SQLite: birdie store + lease + run log + journal vs `SqliteSaver`, each side in its own process',
    limit: 1.2,
  },
];

const argAt = (name) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const side = argAt('--side');
if (side !== undefined) await child(side, argAt('--saver') ?? 'memory');
else await parent();

/** The call one side makes per round trip on `saver`, and how to close what it opened. */
async function sideCall(side, saver, dir) {
  const { model } = await makeModel();
  if (saver === 'memory') {
    const { MemorySaver } = await import('@langchain/langgraph');
    if (side === 'langchain') return { call: await langchainAgent(model, new MemorySaver()) };
    const agent = await birdieGraph(model, await writeToolSkill(join(dir, 'tool-skill')), new MemorySaver());
    return { call: (t) => stream(agent, t), close: () => agent.close() };
  }
  if (side === 'langchain') {
    const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
    return { call: await langchainAgent(model, SqliteSaver.fromConnString(join(dir, 'langchain.db'))) };
  }
  // As framework.mjs's SQLite row: a new session per round trip, with the turn path's lease, run log and journal.
  const { openStore } = await import('@birdie/store');
  const store = openStore({ home: join(dir, 'birdie-home') });
  const agent = await birdieGraph(model, await writeToolSkill(join(dir, 'tool-skill')), store.checkpointer);
  const turn = storeTurn(store, agent);
  return {
    call: async () => turn(await store.sessions.create('bench')),
    close: async () => {
      await agent.close();
      await store.close();
    },
  };
}

/** One side alone: warm up, then TRIPS round trips on new threads; their CPU and wall ms on stdout. */
async function child(side, saver) {
  if (side !== 'birdie' && side !== 'langchain')
    throw new Error(`--side takes birdie or langchain, not ${side}`);
  if (saver !== 'memory' && saver !== 'sqlite')
    throw new Error(`--saver takes memory or sqlite, not ${saver}`);
  const dir = await mkdtemp(join(tmpdir(), 'birdie-framework-apart-'));
  try {
    const { call, close = async () => {} } = await sideCall(side, saver, dir);
    for (let i = 0; i < WARMUP; i++) await call(`w${i}`);
    const cpu = [];
    const wall = [];
    for (let i = 0; i < TRIPS; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await call(`r${i}`);
      wall.push(performance.now() - t0);
      const { user, system } = process.cpuUsage(c0);
      cpu.push((user + system) / 1000);
    }
    await close();
    process.stdout.write(JSON.stringify({ cpu, wall }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runSide(side, saver) {
  const out = spawnSync(
    process.execPath,
    [fileURLToPath(import.meta.url), '--side', side, '--saver', saver],
    {
      encoding: 'utf8',
      env: { ...process.env, BENCH_APART_TRIPS: String(TRIPS) },
    },
  );
  if (out.status !== 0)
    throw new Error(`the ${side} child on ${saver} failed (exit ${out.status}):\n${out.stderr}`);
  return JSON.parse(out.stdout);
}

/** ROUNDS alternating rounds of both sides on `saver`: medians of all measured calls, and each round's CPU ratio. */
function measureApart(saver) {
  const samples = { birdie: [], langchain: [] };
  const walls = { birdie: [], langchain: [] };
  const perRound = [];
  for (let r = 0; r < ROUNDS; r++) {
    // The order swaps every round, so neither side always runs on a machine the other just warmed or loaded.
    const order = r % 2 === 0 ? ['langchain', 'birdie'] : ['birdie', 'langchain'];
    const round = {};
    for (const side of order) {
      const { cpu, wall } = runSide(side, saver);
      samples[side].push(...cpu);
      walls[side].push(...wall);
      round[side] = median(cpu);
    }
    perRound.push(round.birdie / round.langchain);
  }
  return {
    langchain: { cpu: median(samples.langchain), wall: median(walls.langchain) },
    birdie: { cpu: median(samples.birdie), wall: median(walls.birdie) },
    perRound,
  };
}

async function parent() {
  const only = process.env.BENCH_APART_ONLY;
  const lines = [];
  let missed = 0;
  for (const { saver, what, limit } of ROWS) {
    if (only && only !== saver) continue;
    const { langchain: l, birdie: b, perRound } = measureApart(saver);
    const ratio = b.cpu / l.cpu;
    if (ratio > limit) missed++;
    lines.push(
      `| ${what} | ${l.cpu.toFixed(2)} | ${b.cpu.toFixed(2)} | **${ratio.toFixed(2)}×** | ` +
        `${perRound.map((x) => x.toFixed(2)).join(', ')} | ${l.wall.toFixed(2)} / ${b.wall.toFixed(2)} ` +
        `(${(b.wall / l.wall).toFixed(2)}×) | ≤ ${limit}× | ${ratio <= limit ? 'ok' : 'MISSED'} |`,
    );
  }
  console.log(
    `\n## The framework floor, each side in its own process\n\nNode ${process.version}; framework.mjs's round trips, ` +
      `each side alone in a child process (${WARMUP} warm-up round trips, then ${TRIPS} measured), ${ROUNDS} ` +
      'alternating rounds per row; medians of all measured calls. Ratio = birdie / createAgent, CPU time per call.\n',
  );
  console.log(
    '| measurement | createAgent CPU ms | birdie CPU ms | ratio | ratio per round | wall ms (createAgent / birdie) | target | met |',
  );
  console.log('|---|---:|---:|---:|---|---|---|---|');
  for (const line of lines) console.log(line);
  if (missed) console.log(`\nTARGETS MISSED in this run: ${missed}`);
}
