// The MemorySaver round trip of framework.mjs measured the way issue 36's side-by-side run measured it: each side in
// its own process, the processes alternating. framework.mjs runs both agents in one process, where each side also
// pays for the other's garbage (process.cpuUsage counts V8's collector threads) and for LangChain's and LangGraph's
// shared code being compiled for both callers' shapes; here neither side sees the other.
//   node bench/framework-apart.mjs            the table row (BENCH_APART_ROUNDS rounds of BENCH_APART_TRIPS each)
//   node bench/framework-apart.mjs --side S   one child: S = birdie | langchain; prints its CPU ms per call as JSON
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { birdieGraph, langchainAgent, stream } from './framework-turn.mjs';
import { median } from './lib.mjs';
import { makeModel, writeToolSkill } from './peers/agents.mjs';

const ROUNDS = Number(process.env.BENCH_APART_ROUNDS ?? 8);
const TRIPS = Number(process.env.BENCH_APART_TRIPS ?? 300);
// More warm-up than framework.mjs's 30: each child starts cold, and V8 optimises a function only after many calls.
const WARMUP = 300;

const sideAt = process.argv.indexOf('--side');
if (sideAt !== -1) await child(process.argv[sideAt + 1]);
else await parent();

/** One side alone: warm up, then TRIPS round trips on new threads; their CPU and wall ms on stdout. */
async function child(side) {
  const { MemorySaver } = await import('@langchain/langgraph');
  const dir = await mkdtemp(join(tmpdir(), 'birdie-framework-apart-'));
  try {
    const { model } = await makeModel();
    let call;
    let close = async () => {};
    if (side === 'birdie') {
      const agent = await birdieGraph(
        model,
        await writeToolSkill(join(dir, 'tool-skill')),
        new MemorySaver(),
      );
      call = (t) => stream(agent, t);
      close = () => agent.close();
    } else if (side === 'langchain') call = await langchainAgent(model, new MemorySaver());
    else throw new Error(`--side takes birdie or langchain, not ${side}`);
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

function runSide(side) {
  const out = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--side', side], {
    encoding: 'utf8',
    env: { ...process.env, BENCH_APART_TRIPS: String(TRIPS) },
  });
  if (out.status !== 0) throw new Error(`the ${side} child failed (exit ${out.status}):\n${out.stderr}`);
  return JSON.parse(out.stdout);
}

async function parent() {
  const samples = { birdie: [], langchain: [] };
  const walls = { birdie: [], langchain: [] };
  const perRound = [];
  for (let r = 0; r < ROUNDS; r++) {
    // The order swaps every round, so neither side always runs on a machine the other just warmed or loaded.
    const order = r % 2 === 0 ? ['langchain', 'birdie'] : ['birdie', 'langchain'];
    const round = {};
    for (const side of order) {
      const { cpu, wall } = runSide(side);
      samples[side].push(...cpu);
      walls[side].push(...wall);
      round[side] = median(cpu);
    }
    perRound.push(round.birdie / round.langchain);
  }
  const l = median(samples.langchain);
  const b = median(samples.birdie);
  const ratio = b / l;
  console.log(
    `\n## The framework floor, each side in its own process\n\nNode ${process.version}; the MemorySaver round trip of ` +
      `framework.mjs, each side alone in a child process (${WARMUP} warm-up round trips, then ${TRIPS} measured), ` +
      `${ROUNDS} alternating rounds; medians of all measured calls. Ratio = birdie / createAgent, CPU time per call.\n`,
  );
  const lw = median(walls.langchain);
  const bw = median(walls.birdie);
  console.log(
    '| measurement | createAgent CPU ms | birdie CPU ms | ratio | ratio per round | wall ms (createAgent / birdie) | target | met |',
  );
  console.log('|---|---:|---:|---:|---|---|---|---|');
  console.log(
    `| round trip, new thread, MemorySaver, each side in its own process | ${l.toFixed(2)} | ${b.toFixed(2)} | ` +
      `**${ratio.toFixed(2)}×** | ${perRound.map((x) => x.toFixed(2)).join(', ')} | ${lw.toFixed(2)} / ${bw.toFixed(2)} (${(bw / lw).toFixed(2)}×) | ≤ 1.1× | ${ratio <= 1.1 ? 'ok' : 'MISSED'} |`,
  );
}
