// The store's share of framework.mjs's SQLite row, without the graph: records the checkpointer calls of one birdie
// round trip (framework-turn.mjs), then replays them on a new session each time with what the turn path does around
// them (session, lease, thread head, run start, journal, memory, the tool's journal records, run finish with the
// release), alternating call by call with the same checkpointer calls on LangGraph's `SqliteSaver`, and with another
// checkout's store when `BENCH_BEFORE=<its root>` names one (a before/after comparison in one process; that checkout
// must be built). CPU time per round trip, medians; the graph's own work is the same on every side and left out.
// `node bench/store-replay.mjs` after `pnpm build`; BENCH_ROUND_TRIPS (2000) changes the size.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { birdieGraph, storeTurn } from './framework-turn.mjs';
import { median } from './lib.mjs';
import { makeModel, writeToolSkill } from './peers/agents.mjs';

const N = Number(process.env.BENCH_ROUND_TRIPS ?? 2000);
const WARMUP = 100;
const HERE = fileURLToPath(new URL('../../../', import.meta.url));

const dir = await mkdtemp(join(tmpdir(), 'birdie-store-replay-'));
try {
  // 1. Record one round trip's checkpointer calls (what each call points at, and its arguments).
  const { openStore } = await import('@birdie/store');
  const recorder = openStore({ home: join(dir, 'recorder') });
  const calls = [];
  const saver = recorder.checkpointer;
  for (const method of ['getTuple', 'put', 'putWrites']) {
    const original = saver[method].bind(saver);
    saver[method] = (config, ...rest) => {
      const { checkpoint_ns, checkpoint_id } = config.configurable ?? {};
      calls.push([method, { checkpoint_ns, checkpoint_id }, rest]);
      return original(config, ...rest);
    };
  }
  const agent = await birdieGraph((await makeModel()).model, await writeToolSkill(join(dir, 'tool')), saver);
  await storeTurn(recorder, agent)(await recorder.sessions.create('bench'));
  await agent.close();
  await recorder.close();
  const replayOn = async (checkpointer, threadId) => {
    for (const [method, target, rest] of calls)
      await checkpointer[method]({ configurable: { ...target, thread_id: threadId } }, ...rest);
  };

  // 2. The sides.
  const birdie = async (root, name) => {
    const { openStore } = await import(pathToFileURL(join(root, 'packages/store/dist/index.js')).href);
    const store = openStore({ home: join(dir, name) });
    return async () => {
      const session = await store.sessions.create('bench');
      const lease = await store.leases.acquire(session.id, { waitMs: 0 });
      const before = store.checkpointer.headId(session.id);
      const runId = await store.runs.start({
        sessionId: session.id,
        userId: 'bench',
        model: 'fake',
        ...(before ? { startCheckpointId: before } : {}),
      });
      const journal = await store.runs.journal(runId);
      await store.memory.list('bench');
      await replayOn(store.checkpointer, session.id);
      await journal.started({ id: 'call_1', name: 'echo_value', skill: 'echo-tool' });
      await journal.finished({ id: 'call_1', status: 'ok', durationMs: 1 });
      await store.runs.finish(runId, {
        status: 'ok',
        inputTokens: 0,
        outputTokens: 0,
        endCheckpointId: store.checkpointer.headId(session.id),
        sessionTurn: { inputTokens: 0, outputTokens: 0 },
        release: lease,
      });
      await lease.release();
    };
  };
  const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
  const sqliteSaver = SqliteSaver.fromConnString(join(dir, 'langchain.db'));
  let thread = 0;
  const cases = {
    ...(process.env.BENCH_BEFORE ? { before: await birdie(process.env.BENCH_BEFORE, 'before') } : {}),
    birdie: await birdie(HERE, 'birdie'),
    SqliteSaver: () => replayOn(sqliteSaver, `t${thread++}`),
  };

  // 3. Alternating, each case once per round, the order reversed every other round.
  const names = Object.keys(cases);
  const samples = Object.fromEntries(names.map((k) => [k, []]));
  for (let i = 0; i < WARMUP; i++) for (const k of names) await cases[k]();
  for (let i = 0; i < N; i++) {
    for (const k of i % 2 ? names : [...names].reverse()) {
      const c0 = process.cpuUsage();
      await cases[k]();
      const { user, system } = process.cpuUsage(c0);
      samples[k].push((user + system) / 1000);
    }
  }
  const ms = Object.fromEntries(names.map((k) => [k, median(samples[k])]));
  console.log(
    `\n## The store's part of a SQLite round trip\n\n${calls.length} checkpointer calls ` +
      `(${calls.map((c) => c[0]).join(', ')}); median of ${N} alternating replays after ${WARMUP} warm-up each, CPU ms.\n`,
  );
  console.log('| side | what it runs | CPU ms | / SqliteSaver |\n|---|---|---:|---:|');
  const what = {
    before: `\`BENCH_BEFORE\`'s store, turn path around the calls`,
    birdie: "this checkout's store, turn path around the calls",
    SqliteSaver: 'the checkpointer calls only',
  };
  for (const k of names)
    console.log(`| ${k} | ${what[k]} | ${ms[k].toFixed(3)} | ${(ms[k] / ms.SqliteSaver).toFixed(2)}× |`);
  if (ms.before !== undefined)
    console.log(`\nthis checkout − before: ${(ms.birdie - ms.before).toFixed(3)} ms`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
