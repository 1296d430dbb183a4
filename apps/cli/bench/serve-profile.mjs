// Where a served turn goes (issue 36): `birdie serve` under `--cpu-prof`, driven like serve-load.mjs's floor rows
// (SESSIONS concurrent sessions × TURNS turns, scripted model, no tool), then its self time per source file (bundled
// chunks mapped back through their sourcemaps) and per function, as CPU ms per turn. The profile covers the whole
// process; the start-up is taken out by profiling a warm-up run of the same size first and subtracting it.
//
//   node bench/serve-profile.mjs [--by source|function|package] [--top N] [--floor]
//   --floor profiles the floor server of serve-load.mjs (serve-floor/server.mjs) instead, for the comparison
//   BENCH_PROFILE_SESSIONS (20), BENCH_PROFILE_TURNS (25); BENCH_PROFILE_KEEP=DIR keeps the .cpuprofile files there
//   --perf: Linux `perf` instead of `--cpu-prof` (perf-samples.mjs): a warm-up run (SESSIONS × TURNS on new sessions),
//   then the main thread sampled in kernel over a second run of the same size, by package or (`--by owner`) by the code
//   of this repository or the server that asked for the work (`--by owner-function`: by that code's function). `--cpu-prof` charges deep JavaScript stacks more for being
//   sampled, which makes the floor server (LangChain's stack) look as costly as birdie; perf does not.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageOf } from '../test/helpers/loaded-modules.mjs';
import { selfTimes, sourceAt } from './cpu-profile.mjs';
import { perfSamples } from './perf-samples.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const BY = option('--by', 'source');
const TOP = Number(option('--top', 30));
const SESSIONS = Number(process.env.BENCH_PROFILE_SESSIONS ?? 20);
const TURNS = Number(process.env.BENCH_PROFILE_TURNS ?? 25);
const KEEP = process.env.BENCH_PROFILE_KEEP;
/** `BENCH_BIN`: another build of the CLI (a before/after comparison). */
const BIN = process.env.BENCH_BIN ?? fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const FLOOR = argv.includes('--floor');
/** `--cpu-only`: no profiler (its overhead), only the process CPU time per turn. */
const CPU_ONLY = argv.includes('--cpu-only');
const PERF = argv.includes('--perf');
const PERF_HZ = 1999;
const FLOOR_SERVER = fileURLToPath(new URL('./serve-floor/server.mjs', import.meta.url));
const FLOOR_TOKEN = 'floor-bench-token';

function keyOf({ url, functionName, lineNumber, columnNumber }) {
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)' || functionName === '(idle)') return `(${functionName.slice(1, -1)})`;
  if (!url) return `native: ${functionName || '?'}`;
  const mapped = sourceAt(url, lineNumber, columnNumber);
  const source = (mapped?.source ?? url.replace(/^file:\/\/.*node_modules\//, '')).replace(
    /^.*node_modules\//,
    '',
  );
  if (BY === 'package') return url.startsWith('node:') ? 'node builtins' : packageOf(source);
  if (BY === 'function') return `${functionName || '(anonymous)'} ${source}:${lineNumber + 1}`;
  return source;
}

/** Runs one profiled worker through `turns` turns per session; resolves with the profile's path. */
async function profiledRun(dir, turns, label) {
  const home = join(dir, `home-${label}`);
  const profDir = join(dir, `prof-${label}`);
  mkdirSync(profDir);
  const script = join(dir, `script-${label}.json`);
  const replies = Array.from({ length: SESSIONS * turns * (PERF ? 2 : 1) + 10 }, (_, i) => ({
    text: `Reply ${i}, short and done.`,
  }));
  await writeFile(script, JSON.stringify({ replies }));
  let token = FLOOR_TOKEN;
  if (!FLOOR) {
    const { openStore } = await import('@birdie/store');
    const store = openStore({ home });
    token = (await store.tokens.create('bench')).token;
    await store.close();
  }
  const command = FLOOR ? [FLOOR_SERVER] : [BIN, 'serve', '--port', '0', '--rate-limit', '0'];
  const child = spawn(
    process.execPath,
    [
      ...(CPU_ONLY
        ? []
        : PERF
          ? ['--perf-basic-prof', '--interpreted-frames-native-stack']
          : ['--cpu-prof', '--cpu-prof-dir', profDir]),
      ...command,
    ],
    {
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        LANG: 'C.UTF-8',
        BIRDIE_HOME: home,
        LLM_VENDOR: 'scripted',
        LLM_SCRIPT: script,
        BIRDIE_BUNDLED_SKILLS: join(dir, 'no-skills'),
        BENCH_FLOOR_DB: join(dir, `floor-${label}.db`),
        BENCH_FLOOR_TOKEN: FLOOR_TOKEN,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stderr.resume();
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${code}`)));
  });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let failed = 0;
  const drive = () =>
    Promise.all(
      Array.from({ length: SESSIONS }, async (_, s) => {
        const { id } = await (
          await fetch(`${url}/v1/sessions`, { method: 'POST', headers, body: '{}' })
        ).json();
        for (let t = 0; t < turns; t++) {
          const text = await (
            await fetch(`${url}/v1/sessions/${id}/turns`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ prompt: `session ${s} turn ${t}` }),
            })
          ).text();
          if (!/"type":"result","status":"ok"/.test(text)) failed++;
        }
      }),
    );
  let perf;
  if (PERF) {
    await drive();
    perf = spawn(
      'perf',
      ['record', '-F', String(PERF_HZ), '-g', '-o', join(profDir, 'perf.data'), '-p', String(child.pid)],
      {
        stdio: 'ignore',
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 500)); // perf attaches
  }
  const cpuBefore = cpuMs(child.pid);
  await drive();
  if (failed > 0) throw new Error(`${failed} turns failed`);
  cpu[label] = cpuMs(child.pid) - cpuBefore;
  if (perf) {
    const stopped = new Promise((resolve) => perf.once('exit', resolve));
    perf.kill('SIGINT');
    await stopped;
    const samples = perfSamples(join(profDir, 'perf.data'), {
      by: BY,
      frequency: PERF_HZ,
      turns: SESSIONS * turns,
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    rmSync(`/tmp/perf-${child.pid}.map`, { force: true });
    return samples;
  }
  if (CPU_ONLY) {
    child.kill('SIGTERM');
    return undefined;
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  const [file] = readdirSync(profDir);
  if (KEEP) cpSync(join(profDir, file), join(KEEP, `${FLOOR ? 'floor' : 'serve'}-${label}.cpuprofile`));
  return join(profDir, file);
}

/** User + system CPU time of a process so far, ms (from /proc: every thread, SQLite and the thread pool included). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
const cpu = {};

const dir = await mkdtemp(join(tmpdir(), 'birdie-serve-profile-'));
try {
  await mkdir(join(dir, 'no-skills'));
  if (KEEP) mkdirSync(KEEP, { recursive: true });
  // One turn per session: start-up, imports and first-call compilation; the long run minus it is the turns.
  if (PERF) reportPerf(await profiledRun(dir, TURNS, 'long'));
  else if (CPU_ONLY) {
    await profiledRun(dir, TURNS, 'long');
    console.log(
      `${FLOOR ? 'the floor server' : 'birdie serve'}: ${(cpu.long / (SESSIONS * TURNS)).toFixed(1)} ms of process CPU per turn (${SESSIONS} sessions × ${TURNS} turns)`,
    );
  } else
    report(
      selfTimes(await profiledRun(dir, 1, 'short'), keyOf).out,
      selfTimes(await profiledRun(dir, TURNS, 'long'), keyOf).out,
    );
} finally {
  await rm(dir, { recursive: true, force: true });
}

/** Self time per turn: the long run's minus the one-turn run's, over the turns between them. */
function report(short, long) {
  const turns = SESSIONS * (TURNS - 1);
  const rows = [...long]
    .map(([key, ms]) => [key, (ms - (short.get(key) ?? 0)) / turns])
    .filter(([key]) => key !== '(idle)')
    .sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + Math.max(0, ms), 0);
  console.log(
    `\n## Where a served turn goes\n\n${FLOOR ? 'the floor server' : '`birdie serve`'}, ${SESSIONS} concurrent sessions, CPU self time per turn by ${BY} ` +
      `(${TURNS} turns per session minus a 1-turn run; Node ${process.version}): ${total.toFixed(2)} ms per turn in all\n`,
  );
  console.log(
    `Process CPU time (user + system, /proc) of the requests alone: ${(cpu.long / (SESSIONS * TURNS)).toFixed(1)} ms per turn over ${TURNS} turns per session.\n`,
  );
  console.log(`| ${BY} | ms per turn | share |\n|---|---:|---:|`);
  for (const [key, ms] of rows.slice(0, TOP))
    console.log(`| ${key} | ${ms.toFixed(3)} | ${((100 * ms) / total).toFixed(1)}% |`);
}

/** The main thread's time per turn by bucket (perf-samples.mjs), after a warm-up run. */
function reportPerf({ rows, threads }) {
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  console.log(
    `\n## Where a served turn goes (perf)\n\n${FLOOR ? 'the floor server' : '`birdie serve`'}, ${SESSIONS} concurrent sessions × ${TURNS} turns after as many to warm up, ` +
      `main thread sampled by perf at ${PERF_HZ} Hz, by ${BY} (Node ${process.version}): ${total.toFixed(2)} ms per turn; other threads (V8's compiler, GC helpers) ${threads.toFixed(2)} ms\n`,
  );
  console.log(
    `Process CPU time (user + system, /proc): ${(cpu.long / (SESSIONS * TURNS)).toFixed(1)} ms per turn.\n`,
  );
  console.log(`| ${BY} | ms per turn | share |\n|---|---:|---:|`);
  for (const [key, ms] of rows.sort((a, b) => b[1] - a[1]).slice(0, TOP))
    console.log(`| ${key} | ${ms.toFixed(3)} | ${((100 * ms) / total).toFixed(1)}% |`);
}
