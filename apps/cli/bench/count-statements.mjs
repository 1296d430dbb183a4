// Counts what one birdie SQLite round trip (framework.mjs's storeTurn) asks of SQLite: transactions and statements
// by SQL text, averaged over N turns after a warm-up, and the pages it writes to the WAL beside those of LangChain's
// createAgent + SqliteSaver round trip (framework.mjs's baseline). Every page a commit changes is written to the WAL
// once per commit, and the journal's synchronous=FULL commit before each tool call flushes all the pages written
// since the last one to the disk: pages, not statements, are what a round trip's commits cost on a real file system.
// `node bench/count-statements.mjs` (after `pnpm build`).

import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { birdieGraph, langchainAgent, storeTurn } from './framework-turn.mjs';
import { makeModel, writeToolSkill } from './peers/agents.mjs';

const N = Number(process.env.BENCH_TURNS ?? 20);
const require = createRequire(join(process.cwd(), 'node_modules', '@birdie', 'store', 'package.json'));
const Database = require('better-sqlite3');
const counts = new Map();
let transactions = 0;
let counting = false;
const bump = (key) => counting && counts.set(key, (counts.get(key) ?? 0) + 1);
const proto = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1'));
for (const method of ['run', 'get', 'all', 'iterate']) {
  const original = proto[method];
  proto[method] = function (...args) {
    bump(`${method} ${this.source.replace(/\s+/g, ' ').slice(0, 110)}`);
    return original.apply(this, args);
  };
}
const transaction = Database.prototype.transaction;
Database.prototype.transaction = function (fn) {
  const tx = transaction.call(this, fn);
  const counted =
    (run) =>
    (...args) => {
      if (counting) transactions++;
      return run(...args);
    };
  const wrapped = counted(tx);
  for (const kind of ['deferred', 'immediate', 'exclusive']) wrapped[kind] = counted(tx[kind]);
  wrapped.default = wrapped;
  return wrapped;
};

/**
 * Pages each of `runs` writes to `file`'s WAL, summed: the WAL is emptied before each and counted by a passive
 * checkpoint after it (one at a time, so the writer's own automatic checkpoint at 1,000 pages never resets the count).
 */
async function walPages(file, runs) {
  const db = new Database(file);
  // The checkpoints are the bench's, not the round trip's: not counted among its statements.
  const quietly = (pragma) => {
    const was = counting;
    counting = false;
    try {
      return db.pragma(pragma);
    } finally {
      counting = was;
    }
  };
  let pages = 0;
  try {
    for (const run of runs) {
      quietly('wal_checkpoint(TRUNCATE)');
      await run();
      pages += quietly('wal_checkpoint(PASSIVE)')[0].log;
    }
    return pages;
  } finally {
    db.close();
  }
}

const dir = await mkdtemp(join(tmpdir(), 'birdie-count-'));
try {
  const toolDir = await writeToolSkill(join(dir, 'tool-skill'));
  const { openStore } = await import('@birdie/store');
  const store = openStore({ home: join(dir, 'home') });
  const { model } = await makeModel();
  const agent = await birdieGraph(model, toolDir, store.checkpointer);
  const turn = storeTurn(store, agent);
  for (let i = 0; i < 5; i++) await turn(await store.sessions.create('bench'));
  const sessions = [];
  for (let i = 0; i < N; i++) sessions.push(await store.sessions.create('bench'));
  const storeFile = join(
    dir,
    'home',
    readdirSync(join(dir, 'home')).find((f) => f.endsWith('.db')),
  );
  counting = true;
  const birdiePages = await walPages(
    storeFile,
    sessions.map((s) => () => turn(s)),
  );
  counting = false;
  const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
  const lcFile = join(dir, 'langchain.db');
  const invoke = await langchainAgent((await makeModel()).model, SqliteSaver.fromConnString(lcFile));
  for (let i = 0; i < 5; i++) await invoke(`w${i}`);
  const lcPages = await walPages(
    lcFile,
    sessions.map((_, i) => () => invoke(`r${i}`)),
  );
  const rows = [...counts].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((n, [, c]) => n + c, 0);
  console.log(
    `per round trip: ${(transactions / N).toFixed(1)} transactions, ${(total / N).toFixed(1)} statements`,
  );
  console.log(
    `WAL pages written per round trip: birdie ${(birdiePages / N).toFixed(1)}, ` +
      `createAgent + SqliteSaver ${(lcPages / N).toFixed(1)}`,
  );
  for (const [sql, c] of rows) console.log(`${(c / N).toFixed(1).padStart(5)}  ${sql}`);
  await agent.close();
  await store.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
