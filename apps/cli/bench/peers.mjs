// birdie side by side with deepagents 1.14.1 (the closest TypeScript peer), ratios birdie / deepagents measured in
// the same run: round trip, a long SQLite thread, the first call's prompt + tools, loading the corpus skills, cold
// start. Both use `fakeModel()` from @langchain/core/testing and one copy of @langchain/core and @langchain/langgraph.
// Run after `pnpm build`: `pnpm -F birdie bench` (or `node bench/peers.mjs`); BENCH_ROUND_TRIPS, BENCH_TURNS,
// BENCH_RUNS change the sizes.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleave, median, timeNode } from './lib.mjs';
import { birdieAgent, CORPUS, deepAgent, makeModel, quietly, writeToolSkill } from './peers/agents.mjs';

const ROUND_TRIPS = Number(process.env.BENCH_ROUND_TRIPS ?? 200);
const TURNS = Number(process.env.BENCH_TURNS ?? 300);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const LOADS = 40;
const WARMUP = 20;

const require = createRequire(import.meta.url);
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const version = (name) => require(`${name}/package.json`).version;

async function timed(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Alternates the two call by call, so load changes on a shared machine hit both alike. */
async function alternate(n, a, b) {
  const xs = [];
  const ys = [];
  for (let i = 0; i < n; i++) {
    xs.push(await timed(() => a(i)));
    ys.push(await timed(() => b(i)));
  }
  return [xs, ys];
}

const dir = await mkdtemp(join(tmpdir(), 'birdie-peers-'));
const rows = [];
const DECIMALS = { ms: 2, tokens: 0, MiB: 1 };
const row = (what, birdie, deep, unit, note = '') => {
  const n = (x) => x.toFixed(DECIMALS[unit]);
  rows.push(
    `| ${what} | ${n(birdie)} | ${n(deep)} | ${unit} | **${(birdie / deep).toFixed(2)}×** | ${note} |`,
  );
};

try {
  const toolDir = await writeToolSkill(join(dir, 'tool-skill'));

  // 1. Round trip: model → tool call → tool → model → answer, a new thread each time, in-memory checkpointers.
  {
    const { MemorySaver } = await import('@langchain/langgraph');
    const b = await makeModel();
    const d = await makeModel();
    const birdie = await birdieAgent({ model: b.model, toolDir, checkpointer: new MemorySaver() });
    const deep = await deepAgent({ model: d.model, checkpointer: new MemorySaver() });
    await quietly(() =>
      alternate(
        WARMUP,
        (i) => birdie.turn('do the thing', `w${i}`),
        (i) => deep.turn('do the thing', `w${i}`),
      ),
    );
    const [xs, ys] = await quietly(() =>
      alternate(
        ROUND_TRIPS,
        (i) => birdie.turn('do the thing', `r${i}`),
        (i) => deep.turn('do the thing', `r${i}`),
      ),
    );
    row(
      `round trip (2 model calls + 1 tool call, new thread; median of ${ROUND_TRIPS})`,
      median(xs),
      median(ys),
      'ms',
    );

    // 3. What the first model call of that run received: system + user messages and the bound tools.
    const { getEncoding } = await import('js-tiktoken');
    const { convertToOpenAITool } = await import('@langchain/core/utils/function_calling');
    const enc = getEncoding('o200k_base');
    const size = ({ messages, tools }) => {
      const text = messages.map((m) => m.text).join('\n');
      const toolJson = JSON.stringify((tools ?? []).map((t) => convertToOpenAITool(t)));
      return {
        chars: text.length + toolJson.length,
        tokens: enc.encode(text).length + enc.encode(toolJson).length,
        tools: (tools ?? []).length,
        toolChars: toolJson.length,
      };
    };
    const sb = size(b.seen);
    const sd = size(d.seen);
    row(
      `first call: prompt + tool definitions, o200k tokens (birdie ${sb.tools} tools, deepagents ${sd.tools})`,
      sb.tokens,
      sd.tokens,
      'tokens',
      `characters ${sb.chars} vs ${sd.chars}; of which tool JSON ${sb.toolChars} vs ${sd.toolChars}`,
    );
    await birdie.close();
  }

  // 2. Long thread on SQLite: per-turn cost at turn TURNS (birdie's store vs LangGraph's stock SqliteSaver).
  {
    const { openStore } = await import('@birdie/store');
    const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
    const store = openStore({ home: join(dir, 'birdie-home') });
    const deepFile = join(dir, 'deepagents.db');
    const saver = SqliteSaver.fromConnString(deepFile);
    const b = await makeModel({ tools: false, answerChars: 200 });
    const d = await makeModel({ tools: false, answerChars: 200 });
    const birdie = await birdieAgent({ model: b.model, toolDir, checkpointer: store.checkpointer });
    const deep = await deepAgent({ model: d.model, checkpointer: saver });
    const session = await store.sessions.create('bench');
    const text = 'q'.repeat(200);
    const [xs, ys] = await quietly(() =>
      alternate(
        TURNS,
        () => birdie.turn(text, session.id),
        () => deep.turn(text, 'long'),
      ),
    );
    const last = Math.min(10, TURNS);
    row(
      `long thread on SQLite: per-turn cost at turn ${TURNS} (median of the last ${last}; 200-char question and answer)`,
      median(xs.slice(-last)),
      median(ys.slice(-last)),
      'ms',
      `first ${last} turns: ${median(xs.slice(0, last)).toFixed(2)} vs ${median(ys.slice(0, last)).toFixed(2)} ms`,
    );
    await birdie.close();
    await store.close();
    const mb = async (file) => {
      const sizes = await Promise.all(
        ['', '-wal'].map((x) =>
          stat(file + x).then(
            (s) => s.size,
            () => 0,
          ),
        ),
      );
      return sizes.reduce((a, c) => a + c, 0) / 2 ** 20;
    };
    row(
      `long thread: database size after ${TURNS} turns (file + WAL)`,
      await mb(store.file),
      await mb(deepFile),
      'MiB',
    );
  }

  // 4. Loading the 14 corpus skills: birdie's loadRegistry against deepagents' skills middleware load step.
  {
    const { loadRegistry } = await import('@birdie/registry');
    const { createSkillsMiddleware, FilesystemBackend } = await import('deepagents');
    const middleware = createSkillsMiddleware({
      backend: new FilesystemBackend({ rootDir: CORPUS, virtualMode: true }),
      sources: ['/'],
    });
    let counts = [];
    const [xs, ys] = await quietly(() =>
      alternate(
        LOADS,
        async () => {
          const registry = await loadRegistry({ dirs: [CORPUS] });
          counts[0] = registry.current().skills.length;
        },
        async () => {
          const update = await middleware.beforeModel({});
          counts[1] = update.skillsMetadata.length;
        },
      ),
    );
    row(
      `loading the corpus skills, warm (${counts[0]} vs ${counts[1]} loaded; median of ${LOADS} in one process)`,
      median(xs.slice(1)),
      median(ys.slice(1)),
      'ms',
      'goal ≤ 0.7× (issue 22)',
    );
    counts = [];
    // The first load in a fresh process, after the import: what a start pays.
    const once = (side) =>
      Number(execFileSync(process.execPath, [here('./peers/load-skills.mjs'), side], { encoding: 'utf8' }));
    const cold = { birdie: [], deepagents: [] };
    for (let i = 0; i < RUNS; i++) for (const side of ['birdie', 'deepagents']) cold[side].push(once(side));
    row(
      `loading the corpus skills, first load in a fresh process (median of ${RUNS})`,
      median(cold.birdie),
      median(cold.deepagents),
      'ms',
      'goal ≤ 0.7× (issue 22)',
    );
  }

  // 5. Cold start: a fresh process imports the library, builds the agent, answers one turn, exits.
  {
    const opts = { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, BENCH_CORPUS: CORPUS } };
    const cli = {
      cwd: dir,
      env: {
        ...opts.env,
        BIRDIE_HOME: join(dir, 'cli-home'),
        LLM_VENDOR: 'scripted',
        LLM_SCRIPT: here('../examples/hello.json'),
      },
    };
    const m = await interleave(
      {
        birdie: () => timeNode([here('./peers/cold-birdie.mjs')], opts),
        deepagents: () => timeNode([here('./peers/cold-deepagents.mjs')], opts),
        cli: () => timeNode([here('../dist/bin.js'), 'run', 'hello'], cli),
      },
      RUNS,
    );
    row(
      `cold start, library: import, build the agent, one turn, exit (wall; median of ${RUNS})`,
      m.birdie.ms,
      m.deepagents.ms,
      'ms',
      `peak RSS ${m.birdie.rssMiB.toFixed(0)} vs ${m.deepagents.rssMiB.toFixed(0)} MiB`,
    );
    row(
      'cold start, `birdie run` (bundled CLI, scripted model, SQLite store, bundled skills) vs the deepagents script',
      m.cli.ms,
      m.deepagents.ms,
      'ms',
      `peak RSS ${m.cli.rssMiB.toFixed(0)} vs ${m.deepagents.rssMiB.toFixed(0)} MiB`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

console.log(
  `\n## birdie and deepagents side by side\n\nNode ${process.version}; deepagents ${version('deepagents')}, ` +
    `@langchain/core ${version('@langchain/core')}, @langchain/langgraph ${version('@langchain/langgraph')} ` +
    `(one copy of each for both); model: \`fakeModel()\` from @langchain/core/testing on both sides. ` +
    'Ratio = birdie / deepagents (below 1 is birdie ahead).\n',
);
console.log('| measurement | birdie | deepagents | unit | ratio | note |');
console.log('|---|---:|---:|---|---:|---|');
for (const line of rows) console.log(line);
