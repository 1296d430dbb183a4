// Shared by the bench scripts: child processes timed from spawn to exit (or to a marker on a pseudo-terminal), their
// peak memory, medians, and rounds that interleave the cases so load on a shared machine hits every case alike.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
/** Preloaded into every measured process: writes its peak RSS (KiB) and CPU time (ms) when it exits. */
const PROBE = fileURLToPath(new URL('./probe.mjs', import.meta.url));

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const probeDir = mkdtempSync(join(tmpdir(), 'birdie-bench-probe-'));
process.on('exit', () => rmSync(probeDir, { recursive: true, force: true }));
let probes = 0;

function readProbe(file) {
  const [rssKiB, cpuMs] = readFileSync(file, 'utf8').trim().split(' ').map(Number);
  rmSync(file, { force: true });
  return { rssMiB: rssKiB / 1024, cpuMs };
}

/**
 * `node <args>` to completion: wall ms from spawn to exit, peak RSS (MiB) and CPU ms of the child. A non-zero exit
 * fails the bench (a broken build must not pass as fast).
 */
export function timeNode(args, { env, cwd }) {
  const file = join(probeDir, `p${++probes}`);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', PROBE, ...args], {
      env: { ...env, BENCH_PROBE_FILE: file },
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) return reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`));
      resolve({ ms, ...readProbe(file) });
    });
  });
}

/**
 * `node <args>` in a pseudo-terminal. With `marker` null: timed to exit. Otherwise timed until `marker` is on screen;
 * then `type` (if given) is typed and the time runs until `answer` appears; then `quit` is typed and the process
 * must exit on its own (so its probe writes peak memory).
 */
export function timePty(args, { env, cwd, marker = null, type, answer, quit = '/quit' }) {
  const pty = require('node-pty');
  const file = join(probeDir, `p${++probes}`);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = pty.spawn(process.execPath, ['--import', PROBE, ...args], {
      cols: 120,
      rows: 40,
      cwd,
      env: { ...env, BENCH_PROBE_FILE: file },
    });
    let screen = '';
    let ms;
    let typed = false;
    const timer = setTimeout(() => {
      reject(new Error(`timeout; screen: ${screen.slice(-2000)}`));
      p.kill();
    }, 30_000);
    p.onData((d) => {
      screen += d;
      if (ms !== undefined || !marker || !screen.includes(marker)) return;
      if (type && !typed) {
        typed = true;
        p.write(`${type}\r`);
      }
      if (type && !screen.includes(answer)) return;
      ms = performance.now() - t0;
      p.write(`${quit}\r`);
    });
    p.onExit(({ exitCode }) => {
      clearTimeout(timer);
      if (!marker) ms = performance.now() - t0;
      if (ms === undefined || exitCode !== 0)
        return reject(new Error(`exited ${exitCode} before ${marker}: ${screen.slice(-2000)}`));
      try {
        resolve({ ms, ...readProbe(file) });
      } catch (error) {
        reject(error);
      }
    });
  });
}

/**
 * Runs every case once per round, `rounds` times after one warm-up round, and returns the medians per case:
 * `{ [name]: { ms, rssMiB, cpuMs } }`.
 */
export async function interleave(cases, rounds) {
  const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let round = 0; round <= rounds; round++) {
    for (const [name, run] of Object.entries(cases)) {
      const sample = await run();
      if (round > 0) samples[name].push(sample);
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([name, xs]) => [
      name,
      {
        ms: median(xs.map((x) => x.ms)),
        rssMiB: median(xs.map((x) => x.rssMiB)),
        cpuMs: median(xs.map((x) => x.cpuMs)),
      },
    ]),
  );
}

export const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
