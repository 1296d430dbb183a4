// A bounded load run of `birdie serve` on loopback (issue 17): SESSIONS concurrent sessions × TURNS turns each with
// the scripted model, through one worker on SQLite (the reference), one worker on PostgreSQL, and two workers on one
// PostgreSQL database (sessions spread over both; then each turn of a session to the next worker). Prints turns/s,
// p50 and p99 latency of a turn (POST to the end of its event stream) and the errors, with ratios against the first
// row. Bounded: a fixed number of turns, and each scenario stops after BENCH_SERVE_LIMIT_S seconds whatever happens.
// Run after `pnpm build`: `node bench/serve-load.mjs`; BENCH_SERVE_SESSIONS, BENCH_SERVE_TURNS change the sizes.
// The cost of the sandbox (issue 27: every shell tool of `birdie serve` runs in bubblewrap): a row whose every turn runs
// one `bash:` tool under serve, and the same tool called directly here, BENCH_SANDBOX_CALLS times unconfined and as
// many times sandboxed, in the same run.
// The floor (issue 36): `birdie serve` (auth, lease, run log and journal on; no tool, so nothing runs sandboxed)
// against a minimal Hono server around LangChain's `createAgent` + `SqliteSaver` with the same scripted model
// (`serve-floor/server.mjs`), FLOOR_SESSIONS concurrent sessions × TURNS turns, FLOOR_ROUNDS alternating rounds on the
// same two servers, medians: throughput ≥ 0.9× and p50 ≤ 1.3× of the floor.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib.mjs';

const SESSIONS = Number(process.env.BENCH_SERVE_SESSIONS ?? 50);
const SANDBOX_CALLS = Number(process.env.BENCH_SANDBOX_CALLS ?? 50);
const TURNS = Number(process.env.BENCH_SERVE_TURNS ?? 5);
const LIMIT_S = Number(process.env.BENCH_SERVE_LIMIT_S ?? 180);
/** `BENCH_BIN`: another build of the CLI (a before/after comparison). */
const BIN = process.env.BENCH_BIN ?? fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const FLOOR_SERVER = fileURLToPath(new URL('./serve-floor/server.mjs', import.meta.url));
const FLOOR_SESSIONS = Number(process.env.BENCH_FLOOR_SESSIONS ?? 20);
const FLOOR_ROUNDS = Number(process.env.BENCH_FLOOR_ROUNDS ?? 5);
/** `BENCH_SERVE_ONLY=floor`: only the comparison with the floor (no PostgreSQL, no sandbox rows). */
const ONLY_FLOOR = process.env.BENCH_SERVE_ONLY === 'floor';

const { startPostgres } = await import('@birdie/test-utils');

/** Starts `birdie serve` and resolves with its URL and process once it prints its address. */
function startWorker(env, home, extra = [], command = [BIN, 'serve', '--port', '0', '--rate-limit', '0']) {
  const child = spawn(process.execPath, [...command, ...extra], {
    env: { ...env, BIRDIE_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${err}`)), 60_000);
    child.stdout.on('data', (d) => {
      out += d;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1], child, stderr: () => err });
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${err}`)));
  });
}

/** User + system CPU time of a process so far, ms (from /proc: every thread of the server, its SQLite included). */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function stopWorker(worker) {
  const exited = new Promise((resolve) => worker.child.once('exit', resolve));
  worker.child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
  worker.child.kill('SIGKILL');
}

/** One turn: POST, read the stream to its end; ok when it ends with a `result` of status ok. */
async function oneTurn(url, token, id, prompt, signal) {
  const response = await fetch(`${url}/v1/sessions/${id}/turns`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
    signal,
  });
  const text = await response.text();
  if (response.status !== 200) return `HTTP ${response.status} ${text.slice(0, 120)}`;
  return /"type":"result","status":"ok"/.test(text)
    ? undefined
    : `stream ended without ok: ${text.slice(-160)}`;
}

async function scenario(
  name,
  workers,
  token,
  hop,
  prompt = (s, t) => `session ${s} turn ${t}`,
  sessions = SESSIONS,
) {
  const deadline = AbortSignal.timeout(LIMIT_S * 1000);
  const latencies = [];
  const errors = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: sessions }, async (_, s) => {
      const home = workers[s % workers.length];
      const created = await fetch(`${home.url}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
        signal: deadline,
      }).catch((e) => e);
      if (!(created instanceof Response) || created.status !== 201) {
        errors.push(`create: ${created instanceof Response ? created.status : created.message}`);
        return;
      }
      const { id } = await created.json();
      for (let t = 0; t < TURNS; t++) {
        if (deadline.aborted) {
          errors.push('time limit');
          return;
        }
        // Hopping: each turn to the next worker; else a session stays on the worker that made it.
        const worker = hop ? workers[next++ % workers.length] : home;
        const t0 = performance.now();
        const problem = await oneTurn(worker.url, token, id, prompt(s, t), deadline).catch((e) => e.message);
        if (problem) errors.push(problem);
        else latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return {
    name,
    turns: latencies.length,
    seconds,
    rate: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    errors,
  };
}

/** The same `bash:` tool, called SANDBOX_CALLS times unconfined, then as many times in the sandbox: median ms each. */
async function measureSandbox(dir) {
  const { configureSandbox, resolveEntrypoint } = await import('@birdie/entrypoints');
  const tool = resolveEntrypoint('bash:printf ok', { skillDir: dir });
  const median = async () => {
    const times = [];
    for (let i = 0; i < SANDBOX_CALLS; i++) {
      const t0 = performance.now();
      const result = await tool.run({}, { cwd: dir });
      times.push(performance.now() - t0);
      if (result.output !== 'ok') throw new Error(`the probe failed: ${JSON.stringify(result)}`);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  };
  try {
    configureSandbox('declared');
    const plain = await median();
    configureSandbox('always', { network: false });
    const sandboxed = await median();
    return { plain, sandboxed };
  } finally {
    configureSandbox(undefined);
  }
}

/**
 * `birdie serve` against the floor server, both started once, FLOOR_ROUNDS rounds after a warm-up round, the side
 * that goes first alternating: each side's turns/s, p50 and p99 per round.
 */
async function floorRounds(dir, base, openStore, tokenOf) {
  const script = join(dir, 'floor-script.json');
  const replies = FLOOR_SESSIONS * TURNS * (FLOOR_ROUNDS + 1) + 10;
  await writeFile(
    script,
    JSON.stringify({
      replies: Array.from({ length: replies }, (_, i) => ({ text: `Reply ${i}, short and done.` })),
    }),
  );
  const env = { ...base, LLM_SCRIPT: script };
  const home = join(dir, 'floor-birdie');
  const token = await tokenOf(openStore({ home }));
  const floorToken = 'floor-bench-token';
  const floorEnv = { ...env, BENCH_FLOOR_DB: join(dir, 'floor.db'), BENCH_FLOOR_TOKEN: floorToken };
  const servers = {
    birdie: await startWorker(env, home),
    floor: await startWorker(floorEnv, join(dir, 'floor-home'), [], [FLOOR_SERVER]),
  };
  const tokens = { birdie: token, floor: floorToken };
  const samples = { birdie: [], floor: [] };
  try {
    for (let round = 0; round <= FLOOR_ROUNDS; round++) {
      for (const side of round % 2 ? ['floor', 'birdie'] : ['birdie', 'floor']) {
        const cpu0 = cpuMsOf(servers[side].child.pid);
        const r = await scenario(side, [servers[side]], tokens[side], false, undefined, FLOOR_SESSIONS);
        // The server's own CPU per turn (its sessions' creation included): what a loaded machine's noise leaves alone.
        r.cpuPerTurn = (cpuMsOf(servers[side].child.pid) - cpu0) / Math.max(1, r.turns);
        if (round > 0) samples[side].push(r);
      }
    }
  } finally {
    await Promise.all(Object.values(servers).map(stopWorker));
  }
  return samples;
}

let sandboxCost;
let floor;
const dir = await mkdtemp(join(tmpdir(), 'birdie-serve-bench-'));
const pg = ONLY_FLOOR ? { stop: async () => {} } : await startPostgres();
const rows = [];
try {
  // Every reply is plain text (no `match`): each worker answers its turns in order, whatever the session.
  const script = join(dir, 'script.json');
  const replies = Array.from({ length: SESSIONS * TURNS + 10 }, (_, i) => ({
    text: `Reply ${i}, short and done.`,
  }));
  await writeFile(script, JSON.stringify({ replies }));
  const base = {
    PATH: process.env.PATH,
    HOME: dir,
    LANG: 'C.UTF-8',
    LLM_VENDOR: 'scripted',
    LLM_SCRIPT: script,
    BIRDIE_BUNDLED_SKILLS: join(dir, 'no-skills'),
  };
  await mkdir(base.BIRDIE_BUNDLED_SKILLS);
  const tokenOf = async (store) => {
    try {
      return (await store.tokens.create('bench')).token;
    } finally {
      await store.close();
    }
  };
  const { openStore } = await import('@birdie/store');
  const { openPostgresStore } = await import('@birdie/store-postgres');

  // One shell tool per turn: `tool S T` is answered with a call of `ok_probe`, then with text.
  const skills = join(dir, 'probe-skills');
  await mkdir(join(skills, 'probe'), { recursive: true });
  await writeFile(
    join(skills, 'probe', 'SKILL.md'),
    '---\nname: probe\ndescription: A shell tool that prints ok\nenabled_by_default: true\n---\n\n## Tools\n\n### ok_probe\ndescription: Print ok.\nentrypoint: bash:printf ok\n',
  );
  const toolScript = join(dir, 'tool-script.json');
  const toolReplies = [];
  for (let s = 0; s < SESSIONS; s++)
    for (let t = 0; t < TURNS; t++)
      toolReplies.push(
        { match: `^tool ${s} ${t}$`, tool_calls: [{ name: 'ok_probe', args: {} }] },
        { match: `^tool ${s} ${t}$`, text: 'Probed.' },
      );
  await writeFile(toolScript, JSON.stringify({ replies: toolReplies }));

  const runs = [
    { name: '1 worker, SQLite', workers: 1, pg: false },
    { name: '1 worker, SQLite, one shell tool per turn (sandboxed)', workers: 1, pg: false, tool: true },
    { name: '1 worker, PostgreSQL', workers: 1, pg: true },
    { name: '2 workers, one PostgreSQL, each session on one worker', workers: 2, pg: true },
    { name: '2 workers, one PostgreSQL, every turn to the next worker', workers: 2, pg: true, hop: true },
  ];
  floor = await floorRounds(dir, base, openStore, tokenOf);
  for (const [i, run] of (ONLY_FLOOR ? [] : runs).entries()) {
    const schema = `bench_${i}`;
    const sqliteHome = join(dir, `sqlite-${i}`);
    const plain = run.pg ? { ...base, BIRDIE_DATABASE_URL: pg.url, BIRDIE_DATABASE_SCHEMA: schema } : base;
    const env = run.tool ? { ...plain, LLM_SCRIPT: toolScript } : plain;
    const token = await tokenOf(
      run.pg ? await openPostgresStore({ url: pg.url, schema }) : openStore({ home: sqliteHome }),
    );
    const workers = await Promise.all(
      Array.from({ length: run.workers }, (_, w) =>
        startWorker(
          env,
          run.pg ? join(dir, `home-${i}-${w}`) : sqliteHome,
          run.tool ? ['--skills-dir', skills] : [],
        ),
      ),
    );
    try {
      const prompt = run.tool ? (s, t) => `tool ${s} ${t}` : undefined;
      rows.push(await scenario(run.name, workers, token, run.hop === true, prompt));
    } finally {
      await Promise.all(workers.map(stopWorker));
    }
  }
  if (!ONLY_FLOOR) sandboxCost = await measureSandbox(dir);
} finally {
  await pg.stop();
  await rm(dir, { recursive: true, force: true });
}

if (floor) {
  const of = (side, key) => median(floor[side].map((r) => r[key]));
  const rate = of('birdie', 'rate') / of('floor', 'rate');
  const p50 = of('birdie', 'p50') / of('floor', 'p50');
  const met = (ok) => (ok ? 'ok' : 'MISSED');
  console.log(
    `\n## birdie serve at the floor\n\n${FLOOR_SESSIONS} concurrent sessions × ${TURNS} turns, scripted model on both; ` +
      `median of ${FLOOR_ROUNDS} alternating rounds after a warm-up round (Node ${process.version}, ${cpus().length} CPUs). ` +
      'The floor: Hono + LangChain `createAgent` + `SqliteSaver` (bench/serve-floor/server.mjs); birdie serve with ' +
      'auth, lease, run log and journal on.\n',
  );
  console.log('| measurement | floor | birdie serve | ratio | target | met |');
  console.log('|---|---:|---:|---:|---|---|');
  console.log(
    `| throughput, turns/s | ${of('floor', 'rate').toFixed(1)} | ${of('birdie', 'rate').toFixed(1)} | **${rate.toFixed(2)}×** | ≥ 0.9× | ${met(rate >= 0.9)} |`,
  );
  console.log(
    `| p50 latency of a turn, ms | ${of('floor', 'p50').toFixed(0)} | ${of('birdie', 'p50').toFixed(0)} | **${p50.toFixed(2)}×** | ≤ 1.3× | ${met(p50 <= 1.3)} |`,
  );
  console.log(
    `| p99 latency of a turn, ms | ${of('floor', 'p99').toFixed(0)} | ${of('birdie', 'p99').toFixed(0)} | ${(of('birdie', 'p99') / of('floor', 'p99')).toFixed(2)}× | – | |`,
  );
  console.log(
    `| server process CPU per turn, ms (session creation included) | ${of('floor', 'cpuPerTurn').toFixed(1)} | ${of('birdie', 'cpuPerTurn').toFixed(1)} | ${(of('birdie', 'cpuPerTurn') / of('floor', 'cpuPerTurn')).toFixed(2)}× | – | |`,
  );
  console.log(
    `\nPer round, turns/s birdie / floor: ${floor.birdie.map((r, i) => `${r.rate.toFixed(0)}/${floor.floor[i].rate.toFixed(0)}`).join(', ')}`,
  );
  for (const side of ['birdie', 'floor']) {
    const errors = floor[side].flatMap((r) => r.errors);
    if (errors.length > 0) {
      console.log(`\n${side}: ${errors.length} failed turns in the measured rounds, first: ${errors[0]}`);
      process.exitCode = 1;
    }
  }
  if (rate < 0.9 || p50 > 1.3) console.log('\nTARGETS MISSED in this run: birdie serve at the floor');
}
const [first] = rows;
if (first) {
  console.log(
    `\nbirdie serve on loopback: ${SESSIONS} concurrent sessions × ${TURNS} turns, scripted model (Node ${process.version}, ${cpus().length} CPUs)\n`,
  );
  console.log('| setup | turns ok | errors | wall s | turns/s | vs first | p50 ms | p99 ms |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(
      `| ${r.name} | ${r.turns} | ${r.errors.length} | ${r.seconds.toFixed(1)} | ${r.rate.toFixed(1)} | ${(r.rate / first.rate).toFixed(2)}× | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} |`,
    );
  }
}
if (sandboxCost) {
  const { plain, sandboxed } = sandboxCost;
  console.log(
    `\nThe sandbox per tool call (\`bash:printf ok\`, median of ${SANDBOX_CALLS}, same run): unconfined ${plain.toFixed(1)} ms, ` +
      `sandboxed (bubblewrap) ${sandboxed.toFixed(1)} ms: +${(sandboxed - plain).toFixed(1)} ms (${(sandboxed / plain).toFixed(2)}×). ` +
      'Compare the two SQLite rows for the cost of a turn with one tool call under serve.',
  );
}
const failed = rows.filter((r) => r.errors.length > 0);
for (const r of failed) console.log(`\n${r.name}: ${r.errors.length} errors, first: ${r.errors[0]}`);
if (failed.length > 0) process.exitCode = 1;
