// Where the SQLite side of framework.mjs's second row goes: runs only birdie's store turn (framework-turn.mjs's
// storeTurn, a new session each time) N times after a warm-up, and, beside it in alternation, the same graph on a
// MemorySaver, printing the CPU cost the store path adds per round trip. Run under `node --cpu-prof` to see the store
// path's self time: `node --cpu-prof --cpu-prof-dir=/tmp/prof bench/store-turn-profile.mjs` (after `pnpm build`).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
const dir = await mkdtemp(join(tmpdir(), 'birdie-store-turn-'));
try {
  const toolDir = await writeToolSkill(join(dir, 'tool-skill'));
  const { MemorySaver } = await import('@langchain/langgraph');
  const { openStore } = await import('@birdie/store');
  const store = openStore({ home: join(dir, 'home') });
  const onStore = await birdieGraph((await makeModel()).model, toolDir, store.checkpointer);
  const inMemory = await birdieGraph((await makeModel()).model, toolDir, new MemorySaver());
  const turn = storeTurn(store, onStore);
  const memory = [];
  const sqlite = [];
  for (let i = 0; i < 30; i++) {
    await stream(inMemory, `w${i}`);
    await turn(await store.sessions.create('bench'));
  }
  // BENCH_STORE_ONLY=1: the store turns alone (for a profiler that should see nothing else).
  const storeOnly = process.env.BENCH_STORE_ONLY === '1';
  for (let i = 0; i < N; i++) {
    if (!storeOnly) memory.push(await cpu(() => stream(inMemory, `r${i}`)));
    const session = await store.sessions.create('bench');
    sqlite.push(await cpu(() => turn(session)));
  }
  const m = storeOnly ? Number.NaN : median(memory);
  const s = median(sqlite);
  console.log(
    `birdie CPU ms per round trip (median of ${N}): MemorySaver ${m.toFixed(2)}, SQLite store turn ${s.toFixed(2)}, store path adds ${(s - m).toFixed(2)}`,
  );
  await onStore.close();
  await inMemory.close();
  await store.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
