// Start-up of the built CLI against the floor (bench/floor.mjs: import LangGraph + LangChain core messages, open an
// in-memory better-sqlite3 database) and against `node -e 0`, wall time and peak memory, medians of interleaved
// rounds in one run. Rows with a target say whether this run met it; a missed one is listed again at the end.
// Run after `pnpm build`: `pnpm -F birdie bench` (BENCH_RUNS=N for more rounds).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleave, ratio, timeNode, timePty } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'dist', 'bin.js');
const floor = join(root, 'bench', 'floor.mjs');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

const home = mkdtempSync(join(tmpdir(), 'birdie-bench-'));
const opts = {
  cwd: home,
  env: {
    PATH: process.env.PATH,
    HOME: home,
    USER: 'bench',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    NO_COLOR: '1',
    BIRDIE_HOME: join(home, '.birdie'),
    // The README's offline example: the scripted model and the bundled skills (the REPL and `run` load all of them).
    LLM_VENDOR: 'scripted',
    LLM_SCRIPT: join(root, 'examples', 'hello.json'),
  },
};

const PROMPT = '\u2588'; // the input's cursor block: the prompt is drawn and takes keys
const cases = {
  'node -e 0': () => timeNode(['-e', '0'], opts),
  floor: () => timeNode([floor], opts),
  version: () => timeNode([bin, '--version'], opts),
  help: () => timeNode([bin, '--help'], opts),
  'run hello': () => timeNode([bin, 'run', 'hello'], opts),
  'run tool': () => timeNode([bin, 'run', '--enable', 'filesystem', 'what files are in this folder?'], opts),
  'floor pty': () => timePty([floor], opts),
  'node -e 0 pty': () => timePty(['-e', '0'], opts),
  'repl prompt': () => timePty([bin], { ...opts, marker: PROMPT }),
  'repl ready': () => timePty([bin], { ...opts, marker: PROMPT, type: '/session info', answer: ' turns ' }),
};

let m;
try {
  m = await interleave(cases, RUNS);
} finally {
  rmSync(home, { recursive: true, force: true });
}

const f = m.floor;
const fp = m['floor pty'];
const n0 = m['node -e 0'];
const n0p = m['node -e 0 pty'];

/** A target of one row: its words, and whether this run met it. */
const missed = [];
const target = (label, text, ok) => {
  if (!ok) missed.push(`${label}: ${text}`);
  return { text, ok };
};
const within = (x, base, wall, rss) =>
  x.ms / base.ms <= wall && (rss === undefined || x.rssMiB / base.rssMiB <= rss);

const row = (label, x, base, goal) =>
  `| ${label} | ${x.ms.toFixed(0)} | **${ratio(x.ms, base.ms)}** | ${x.rssMiB.toFixed(1)} | ${ratio(x.rssMiB, base.rssMiB)} | ${x.cpuMs.toFixed(0)} | ${goal ? goal.text : '–'} | ${goal ? (goal.ok ? 'ok' : '**MISSED**') : ''} |`;
console.log(
  `\n## birdie start-up against the floor\n\nMedians of ${RUNS} interleaved rounds, Node ${process.version}. Floor = ` +
    '`bench/floor.mjs` (imports `@langchain/langgraph` + `@langchain/core/messages` from node_modules, opens an ' +
    'in-memory better-sqlite3 database). Peak RSS and CPU from `process.resourceUsage()` at exit. The REPL rows run in a ' +
    'pseudo-terminal and are compared with the floor run the same way; the first prompt is also held to its target ' +
    'against `node -e 0` in a pseudo-terminal.\n',
);
console.log('| measurement | wall ms | ratio to floor | peak RSS MiB | RSS ratio | CPU ms | target | met |');
console.log('|---|---:|---:|---:|---:|---:|---|---|');
console.log(row('`node -e 0`', n0, f));
console.log(row('**floor** (spawned)', f, f));
console.log(row('`birdie --version`', m.version, f));
console.log(row('`birdie --help`', m.help, f));
const runHello = '`birdie run hello` (one scripted turn)';
console.log(
  row(
    runHello,
    m['run hello'],
    f,
    target(runHello, 'wall ≤ 1.0×, RSS ≤ 1.1×', within(m['run hello'], f, 1.0, 1.1)),
  ),
);
const runTool = '`birdie run --enable filesystem "what files…"` (README example: one turn, one tool call)';
console.log(
  row(
    runTool,
    m['run tool'],
    f,
    target(runTool, 'wall ≤ 1.0×, RSS ≤ 1.1×', within(m['run tool'], f, 1.0, 1.1)),
  ),
);
console.log(row('**floor** in a pty', fp, fp));
console.log(row('`node -e 0` in a pty', n0p, fp));
const prompt = '`birdie` → first prompt drawn (pty)';
const promptToNode = m['repl prompt'].ms / n0p.ms;
console.log(
  row(
    prompt,
    m['repl prompt'],
    fp,
    target(prompt, `wall ≤ 6× \`node -e 0\` in a pty: ${promptToNode.toFixed(2)}×`, promptToNode <= 6),
  ),
);
const ready = '`birdie` → `/session info` typed at once, answered (runtime ready, pty)';
console.log(row(ready, m['repl ready'], fp, target(ready, 'wall ≤ 1.2×', within(m['repl ready'], fp, 1.2))));
console.log(
  missed.length === 0
    ? '\nEvery target met in this run.'
    : `\nTARGETS MISSED in this run (${missed.length}):\n${missed.map((line) => `- ${line}`).join('\n')}`,
);
