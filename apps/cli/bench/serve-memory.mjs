// Memory of a long-running server (issue 36): TURNS turns on SESSIONS sessions (all at once, each session's turns in
// order) through one `birdie serve` worker on SQLite with the scripted model, its resident set size (VmRSS of the
// worker, from /proc) read every STEP turns. Target: RSS after turn TURNS ≤ 1.2× RSS after turn BASE (the baseline,
// measured in the same run on the same process). Prints the curve. Run after `pnpm build`:
// `node bench/serve-memory.mjs`; BENCH_MEMORY_TURNS (5000), BENCH_MEMORY_SESSIONS (50), BENCH_MEMORY_STEP (500).
// Beside the RSS: what its pages are (anonymous, file-backed, freed lazily: /proc/PID/smaps_rollup), the worker's V8
// heap (total, used, by space), external memory and array buffers (process.memoryUsage(), asked through
// memory-probe.mjs over IPC: heap growth against native growth), its CPU time per turn (what a heap setting costs) and
// the load average. Every point is read as the worker stands: nothing is collected on the bench's behalf, so the
// curve is what an operator's monitor sees. BENCH_MEMORY_GC=1 (a diagnostic: it changes the curve) also reads each
// point after a full garbage collection (the worker runs with --expose-gc): the V8 heap in use then is what is live.
// BENCH_MEMORY_SNAPSHOTS=DIR also writes heap snapshots of the worker after turns BASE and TURNS into DIR (they pause
// it, collect garbage and leave the allocator holding their memory, so the curve of such a run is not the bench's).
// BENCH_MEMORY_NODE_FLAGS: node flags for the worker (V8 heap settings under study), space-separated.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TURNS = Number(process.env.BENCH_MEMORY_TURNS ?? 5000);
const SESSIONS = Number(process.env.BENCH_MEMORY_SESSIONS ?? 50);
const STEP = Number(process.env.BENCH_MEMORY_STEP ?? 500);
const BASE = Math.min(1000, TURNS);
const SNAPSHOTS = process.env.BENCH_MEMORY_SNAPSHOTS;
/** `BENCH_MEMORY_GC=1`: also read each point after a full collection (a diagnostic: it changes the curve). */
const GC = process.env.BENCH_MEMORY_GC === '1';
/** `BENCH_MEMORY_NODE_FLAGS`: flags for the worker's node (V8 heap settings under study), space-separated. */
const NODE_FLAGS = (process.env.BENCH_MEMORY_NODE_FLAGS ?? '').split(' ').filter(Boolean);
/** `BENCH_BIN`: another build of the CLI (a before/after comparison). */
const BIN = process.env.BENCH_BIN ?? fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const PROBE = fileURLToPath(new URL('./memory-probe.mjs', import.meta.url));

const rssMiB = (pid) => {
  const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) / 1024;
};
/** The worker's CPU time so far (user + system), ms, from /proc/PID/stat. */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat(5), counted from 3 after the command name; in clock ticks (100/s).
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
/** The worker's mappings summed (/proc/PID/smaps_rollup), MiB by field: what kind of pages its RSS is made of. */
const smapsMiB = (pid) => {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const field = (name) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN) / 1024;
  return {
    anonymous: field('Anonymous'),
    lazyFree: field('LazyFree'),
    file: field('Rss') - field('Anonymous'),
  };
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
    [
      ...(GC ? ['--expose-gc'] : []),
      ...NODE_FLAGS,
      '--import',
      PROBE,
      BIN,
      'serve',
      '--port',
      '0',
      '--rate-limit',
      '0',
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
  const mib = (bytes) => bytes / 1024 / 1024;
  /** The worker's V8 heap as its probe reads it (after a full collection if `gc`). */
  const heap = async (gc) => {
    const { usage, spaces } = await ask({ type: 'usage', gc });
    return {
      heapTotal: mib(usage.heapTotal),
      heapUsed: mib(usage.heapUsed),
      external: mib(usage.external),
      arrayBuffers: mib(usage.arrayBuffers),
      newSpace: mib(spaces.new_space ?? 0),
      oldSpace: mib(spaces.old_space ?? 0),
      codeAndLarge: mib(
        (spaces.code_space ?? 0) + (spaces.large_object_space ?? 0) + (spaces.code_large_object_space ?? 0),
      ),
    };
  };
  const measure = async (turns) => {
    // As the worker stands: nothing collected on the bench's behalf.
    const point = {
      turns,
      cpu: cpuMs(worker.pid),
      // What SQLite's page cache (better-sqlite3's default: 16,000 KiB a connection) can fill up to.
      database: mib(statSync(join(home, 'birdie.db')).size),
      rss: rssMiB(worker.pid),
      ...smapsMiB(worker.pid),
      ...(await heap(false)),
    };
    if (GC) {
      const after = await heap(true);
      point.gc = { rss: rssMiB(worker.pid), ...after };
    }
    curve.push(point);
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
  const loadBefore = loadavg()[0].toFixed(1);
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
  const at = (n) => curve.find((point) => point.turns === n);
  const ratio = at(TURNS).rss / at(BASE).rss;
  const cpuPerTurn = (at(TURNS).cpu - at(0).cpu) / TURNS;
  console.log(
    `\n## Memory of a long-running server\n\n${TURNS} turns on ${SESSIONS} sessions through one \`birdie serve\` worker ` +
      `(SQLite, scripted model; Node ${process.version}), ${(TURNS / seconds).toFixed(0)} turns/s, ${errors} errors, ` +
      `${cpuPerTurn.toFixed(1)} ms of the worker's CPU per turn, ` +
      `load average ${loadBefore} before and ${loadavg()[0].toFixed(1)} after. The worker after each ${STEP} turns, ` +
      'as it stands (MiB):\n',
  );
  const table = (points, rows) => {
    console.log(`| turns | ${points.map((p) => p.turns).join(' | ')} |`);
    console.log(`|---|${points.map(() => '---:').join('|')}|`);
    for (const [name, read] of rows)
      console.log(`| ${name} | ${points.map((p) => read(p).toFixed(0)).join(' | ')} |`);
  };
  const v8Rows = (of) => [
    ['V8 heap total', (p) => of(p).heapTotal],
    ['V8 heap used', (p) => of(p).heapUsed],
    ['V8 new space', (p) => of(p).newSpace],
    ['V8 old space', (p) => of(p).oldSpace],
    ['V8 code + large objects', (p) => of(p).codeAndLarge],
    ['external', (p) => of(p).external],
    ['array buffers', (p) => of(p).arrayBuffers],
  ];
  table(curve, [
    ['RSS', (p) => p.rss],
    ['RSS: anonymous', (p) => p.anonymous],
    ['RSS: of which freed lazily (LazyFree)', (p) => p.lazyFree],
    ['RSS: file-backed (binary, libraries)', (p) => p.file],
    ['database file (not in the RSS)', (p) => p.database],
    ...v8Rows((p) => p),
  ]);
  if (GC) {
    console.log(
      '\nThe same points after a full garbage collection (BENCH_MEMORY_GC: not the curve the target is judged on):\n',
    );
    table(curve, [['RSS', (p) => p.gc.rss], ...v8Rows((p) => p.gc)]);
  }
  const met = (r) => (r <= 1.2 ? 'ok' : 'MISSED');
  const row = (name, read, target) =>
    `| ${name} | ${read(at(BASE)).toFixed(1)} | ${read(at(TURNS)).toFixed(1)} | ${target ? '**' : ''}${(read(at(TURNS)) / read(at(BASE))).toFixed(2)}×${target ? '**' : ''} | ${target ? `≤ 1.2× | ${met(read(at(TURNS)) / read(at(BASE)))}` : '– |'} |`;
  console.log(
    `\n| measurement | after ${BASE} | after ${TURNS} | ratio | target | met |\n|---|---:|---:|---:|---|---|\n` +
      [
        row('RSS of the worker, MiB (the target)', (p) => p.rss, true),
        row('V8 heap used, MiB (as it stands: live and garbage)', (p) => p.heapUsed),
        row('V8 heap total, MiB', (p) => p.heapTotal),
        ...(GC ? [row('V8 heap used after a full GC (what is live), MiB', (p) => p.gc.heapUsed)] : []),
      ].join('\n'),
  );
  if (ratio > 1.2) console.log('\nTARGETS MISSED in this run: RSS of a long-running server');
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
