// Memory of a long-running server (issue 36): TURNS turns on SESSIONS sessions (all at once, each session's turns in
// order) through one `birdie serve` worker on SQLite with the scripted model, its resident set size (VmRSS of the
// worker, from /proc) read every STEP turns. Target: RSS after turn TURNS ≤ 1.2× RSS after turn BASE (the baseline,
// measured in the same run on the same process). Prints the curve. Run after `pnpm build`:
// `node bench/serve-memory.mjs`; BENCH_MEMORY_TURNS (5000), BENCH_MEMORY_SESSIONS (50), BENCH_MEMORY_STEP (500).
// Beside the RSS, the worker's V8 heap in use, its external memory and array buffers (process.memoryUsage(), asked
// through memory-probe.mjs over IPC) tell heap growth from native growth (SQLite, allocator). Each point is read
// twice: as the worker stands (no forced collection: what an operator's monitor sees, moved ±0.25× by when V8 last
// collected), then after a full garbage collection (the worker runs with --expose-gc): the second is the steady
// figure the target is judged on; both curves and both ratios are printed. A full collection does not make V8 give
// its freed pages back at once (its heap total stays high for a while), so the RSS after it still moves from run to
// run; the V8 heap in use after it (what is live) is the steady figure, printed beside them.
// BENCH_MEMORY_SNAPSHOTS=DIR also writes heap snapshots of the worker after turns BASE and TURNS into DIR (they pause
// it and collect garbage, so the curve of such a run is not the bench's).
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TURNS = Number(process.env.BENCH_MEMORY_TURNS ?? 5000);
const SESSIONS = Number(process.env.BENCH_MEMORY_SESSIONS ?? 50);
const STEP = Number(process.env.BENCH_MEMORY_STEP ?? 500);
const BASE = Math.min(1000, TURNS);
const SNAPSHOTS = process.env.BENCH_MEMORY_SNAPSHOTS;
/** `BENCH_BIN`: another build of the CLI (a before/after comparison). */
const BIN = process.env.BENCH_BIN ?? fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const PROBE = fileURLToPath(new URL('./memory-probe.mjs', import.meta.url));

const rssMiB = (pid) => {
  const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) / 1024;
};

const dir = await mkdtemp(join(tmpdir(), 'birdie-serve-memory-'));
const home = join(dir, 'home');
let worker;
let stopping = false;
try {
  const script = join(dir, 'script.json');
  const replies = Array.from({ length: TURNS + 10 }, (_, i) => ({ text: `Reply ${i}, short and done.` }));
  await writeFile(script, JSON.stringify({ replies }));
  await mkdir(join(dir, 'no-skills'));
  const { openStore } = await import('@birdie/store');
  const store = openStore({ home });
  const { token } = await store.tokens.create('bench');
  await store.close();
  worker = spawn(
    process.execPath,
    ['--expose-gc', '--import', PROBE, BIN, 'serve', '--port', '0', '--rate-limit', '0'],
    {
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        LANG: 'C.UTF-8',
        BIRDIE_HOME: home,
        LLM_VENDOR: 'scripted',
        LLM_SCRIPT: script,
        BIRDIE_BUNDLED_SKILLS: join(dir, 'no-skills'),
        // To measure the allocator's share (e.g. MALLOC_ARENA_MAX=2) or V8 flags.
        ...Object.fromEntries(
          Object.entries(process.env).filter(
            ([name]) => name.startsWith('MALLOC_') || name === 'NODE_OPTIONS',
          ),
        ),
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  );
  // The end of the worker's stderr, to say why it stopped if it does.
  let stderr = '';
  worker.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  worker.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`the worker stopped (${signal ?? `exit ${code}`}) during the run:\n${stderr}`);
    rmSync(dir, { recursive: true, force: true });
    process.exit(1);
  });
  const ask = (message) =>
    new Promise((resolve) => {
      const answer = (reply) => {
        if (reply?.type !== message.type) return;
        worker.off('message', answer);
        resolve(reply);
      };
      worker.on('message', answer);
      worker.send(message);
    });
  const measure = async (turns) => {
    const rss = rssMiB(worker.pid);
    const { usage, spaces } = await ask({ type: 'usage', gc: true });
    const mib = (bytes) => bytes / 1024 / 1024;
    curve.push([
      turns,
      rss,
      mib(usage.heapTotal),
      mib(usage.heapUsed),
      mib(usage.external),
      mib(usage.arrayBuffers),
      mib(spaces.new_space ?? 0),
      mib(spaces.old_space ?? 0),
      mib(
        (spaces.code_space ?? 0) + (spaces.large_object_space ?? 0) + (spaces.code_large_object_space ?? 0),
      ),
      rssMiB(worker.pid),
    ]);
    if (SNAPSHOTS && (turns === BASE || turns === TURNS))
      await ask({ type: 'snapshot', path: join(SNAPSHOTS, `serve-${turns}.heapsnapshot`) });
  };
  const url = await new Promise((resolve, reject) => {
    let out = '';
    worker.stdout.on('data', (d) => {
      out += d;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    worker.once('exit', (code) => reject(new Error(`worker exited ${code}`)));
  });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const curve = [];
  await measure(0);
  let done = 0;
  let errors = 0;
  let firstError;
  // Measurements in turn order, each after the one before (a snapshot pauses the worker).
  let measuring = Promise.resolve();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SESSIONS }, async (_, s) => {
      const created = await fetch(`${url}/v1/sessions`, { method: 'POST', headers, body: '{}' });
      const { id } = await created.json();
      for (let t = s; t < TURNS; t += SESSIONS) {
        const text = await fetch(`${url}/v1/sessions/${id}/turns`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ prompt: `session ${s} turn ${t}` }),
        }).then(
          (response) => response.text(),
          (error) => String(error),
        );
        if (!/"type":"result","status":"ok"/.test(text)) {
          errors++;
          firstError ??= text.slice(-300);
        }
        done++;
        if (done % STEP === 0) {
          const turns = done;
          measuring = measuring.then(() => measure(turns));
          if (SNAPSHOTS) await measuring;
        }
      }
    }),
  );
  await measuring;
  const seconds = (performance.now() - started) / 1000;
  const at = (n, column = 1) => curve.find(([turns]) => turns === n)?.[column] ?? Number.NaN;
  const ratio = at(TURNS) / at(BASE);
  const steady = at(TURNS, 9) / at(BASE, 9);
  console.log(
    `\n## Memory of a long-running server\n\n${TURNS} turns on ${SESSIONS} sessions through one \`birdie serve\` worker ` +
      `(SQLite, scripted model; Node ${process.version}), ${(TURNS / seconds).toFixed(0)} turns/s, ${errors} errors. ` +
      `Resident set size of the worker after each ${STEP} turns:\n`,
  );
  console.log(`| turns | ${curve.map(([n]) => n).join(' | ')} |`);
  console.log(`|---|${curve.map(() => '---:').join('|')}|`);
  const row = (name, column) => `| ${name} | ${curve.map((point) => point[column].toFixed(0)).join(' | ')} |`;
  console.log(row('RSS MiB (as it stands)', 1));
  console.log(row('RSS MiB after a full GC', 9));
  // The V8 figures are read after the full collection.
  console.log(row('V8 heap total MiB', 2));
  console.log(row('V8 heap used MiB', 3));
  console.log(row('V8 new space MiB', 6));
  console.log(row('V8 old space MiB', 7));
  console.log(row('V8 code + large objects MiB', 8));
  console.log(row('external MiB', 4));
  console.log(row('array buffers MiB', 5));
  const met = (r) => (r <= 1.2 ? 'ok' : 'MISSED');
  console.log(
    `\n| measurement | after ${BASE} | after ${TURNS} | ratio | target | met |\n|---|---:|---:|---:|---|---|\n` +
      `| RSS of the worker after a full GC, MiB (the target's figure) | ${at(BASE, 9).toFixed(1)} | ${at(TURNS, 9).toFixed(1)} | **${steady.toFixed(2)}×** | ≤ 1.2× | ${met(steady)} |\n` +
      `| RSS of the worker as it stands (no forced GC), MiB | ${at(BASE).toFixed(1)} | ${at(TURNS).toFixed(1)} | ${ratio.toFixed(2)}× | ≤ 1.2× | ${met(ratio)} |\n` +
      `| V8 heap in use after a full GC (what is live), MiB | ${at(BASE, 3).toFixed(1)} | ${at(TURNS, 3).toFixed(1)} | ${(at(TURNS, 3) / at(BASE, 3)).toFixed(2)}× | – | |`,
  );
  if (steady > 1.2) console.log('\nTARGETS MISSED in this run: RSS of a long-running server');
  if (errors > 0) {
    console.log(`\nThe first failed turn ended with: ${firstError}`);
    process.exitCode = 1;
  }
} finally {
  if (worker && worker.exitCode === null) {
    stopping = true;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    worker.kill('SIGKILL');
  }
  await rm(dir, { recursive: true, force: true });
}
