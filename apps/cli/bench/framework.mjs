// The framework floor (issue 36): one round trip (model → tool call → tool → model → answer, a new thread each time)
// through birdie's agent against LangChain's own `createAgent` (the `langchain` package) with the same zero-latency
// `fakeModel()` and the same tool function, in the same process, alternating call by call after a warm-up:
//   1. MemorySaver on both, no skills but the one tool (target ≤ 1.1×);
//   2. SQLite: birdie's store with what a CLI turn does around the graph (the session's lease, the run log's start
//      and finish, the tool journal, the session's totals; checksums are the store's checkpointer's own) against
//      `createAgent` + LangGraph's `SqliteSaver` (target ≤ 1.2×).
// CPU time per call (process.cpuUsage, the measure) and wall time, medians. Run after `pnpm build`:
// `node bench/framework.mjs`; BENCH_ROUND_TRIPS (300) changes the size.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { birdieGraph, langchainAgent, storeTurn, stream } from './framework-turn.mjs';
import { median } from './lib.mjs';
import { makeModel, writeToolSkill } from './peers/agents.mjs';

const ROUND_TRIPS = Number(process.env.BENCH_ROUND_TRIPS ?? 300);
const WARMUP = 30;

/** One call's CPU ms (user + system) and wall ms. */
async function measure(fn) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  const { user, system } = process.cpuUsage(c0);
  return { cpu: (user + system) / 1000, wall };
}

/** Alternates the cases call by call (so load on a shared machine hits all alike); medians per case. */
async function alternate(n, cases) {
  const names = Object.keys(cases);
  const samples = Object.fromEntries(names.map((k) => [k, []]));
  for (let i = 0; i < WARMUP; i++) for (const k of names) await cases[k](`w${i}`);
  for (let i = 0; i < n; i++) for (const k of names) samples[k].push(await measure(() => cases[k](`r${i}`)));
  return Object.fromEntries(
    names.map((k) => [
      k,
      { cpu: median(samples[k].map((s) => s.cpu)), wall: median(samples[k].map((s) => s.wall)) },
    ]),
  );
}

const dir = await mkdtemp(join(tmpdir(), 'birdie-framework-'));
const rows = [];
const cpuRow = (what, m, target, limit) => {
  const ratio = m.birdie.cpu / m.langchain.cpu;
  rows.push(
    `| ${what} | ${m.langchain.cpu.toFixed(2)} | ${m.birdie.cpu.toFixed(2)} | **${ratio.toFixed(2)}×** | ` +
      `${m.langchain.wall.toFixed(2)} / ${m.birdie.wall.toFixed(2)} (${(m.birdie.wall / m.langchain.wall).toFixed(2)}×) | ${target} | ${ratio <= limit ? 'ok' : 'MISSED'} |`,
  );
  return ratio <= limit;
};
let missed = 0;
try {
  const toolDir = await writeToolSkill(join(dir, 'tool-skill'));
  const { MemorySaver } = await import('@langchain/langgraph');

  // 1. MemorySaver on both.
  {
    const b = await makeModel();
    const l = await makeModel();
    const agent = await birdieGraph(b.model, toolDir, new MemorySaver());
    const cases = {
      birdie: (t) => stream(agent, t),
      langchain: await langchainAgent(l.model, new MemorySaver()),
    };
    const m = await alternate(ROUND_TRIPS, cases);
    if (
      !cpuRow('round trip, new thread, MemorySaver (birdie `createAgent` of @birdie/graph)', m, '≤ 1.1×', 1.1)
    )
      missed++;
    await agent.close();
  }

  // 2. SQLite: birdie's store (lease, run log, journal, checksums) vs createAgent + SqliteSaver.
  {
    const { openStore } = await import('@birdie/store');
    const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
    const store = openStore({ home: join(dir, 'birdie-home') });
    const saver = SqliteSaver.fromConnString(join(dir, 'langchain.db'));
    const b = await makeModel();
    const l = await makeModel();
    const agent = await birdieGraph(b.model, toolDir, store.checkpointer);
    const turn = storeTurn(store, agent);
    const invoke = await langchainAgent(l.model, saver);
    const cases = {
      birdie: async () => turn(await store.sessions.create('bench')),
      langchain: (t) => invoke(t),
    };
    const m = await alternate(ROUND_TRIPS, cases);
    if (
      !cpuRow(
        'round trip, new session, SQLite: birdie store + lease + run log + journal vs `SqliteSaver`',
        m,
        '≤ 1.2×',
        1.2,
      )
    )
      missed++;
    await agent.close();
    await store.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

console.log(
  `\n## The framework floor: birdie against LangChain's createAgent\n\nNode ${process.version}; fakeModel() on both, ` +
    `one tool; median of ${ROUND_TRIPS} alternating round trips (2 model calls + 1 tool call) after ${WARMUP} warm-up each. ` +
    'Ratio = birdie / createAgent, CPU time per call.\n',
);
console.log(
  '| measurement | createAgent CPU ms | birdie CPU ms | ratio | wall ms (createAgent / birdie) | target | met |',
);
console.log('|---|---:|---:|---:|---|---|---|');
for (const line of rows) console.log(line);
if (missed) console.log(`\nTARGETS MISSED in this run: ${missed}`);
