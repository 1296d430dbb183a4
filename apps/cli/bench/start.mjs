// `birdie start`: (1) CPU time over wall time of an idle `birdie start` with 20 scheduled agents (target ≤ 0.01), and
// (2) the delay from a due time to the model call against the time a fresh `birdie run` needs to reach its model call,
// measured in the same run (target ≤ 0.2×). The model is a local OpenAI-compatible server that notes when each
// request arrives. Run after `pnpm build`: `node bench/start.mjs` (BENCH_IDLE_S=60, BENCH_RUNS=5).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'dist', 'bin.js');
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 60);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TICKS_PER_S = 100; // USER_HZ on Linux

const arrivals = [];
const server = createServer((req, res) => {
  arrivals.push(Date.now());
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', () => {
    const stream = JSON.parse(body || '{}').stream === true;
    const message = { role: 'assistant', content: 'ok' };
    const usage = { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 };
    if (!stream) {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: 'b',
          object: 'chat.completion',
          created: 0,
          model: 'bench',
          choices: [{ index: 0, message, finish_reason: 'stop' }],
          usage,
        }),
      );
      return;
    }
    res.setHeader('content-type', 'text/event-stream');
    const chunk = (delta, finish, extra = {}) =>
      `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
    res.end(
      `${chunk({ role: 'assistant', content: 'ok' }, null)}${chunk({}, 'stop', { usage })}data: [DONE]\n\n`,
    );
  });
});
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const port = server.address().port;

const home = mkdtempSync(join(tmpdir(), 'birdie-bench-start-'));
const env = {
  PATH: process.env.PATH,
  HOME: home,
  USER: 'bench',
  LANG: 'C.UTF-8',
  NO_COLOR: '1',
  BIRDIE_HOME: join(home, '.birdie'),
  LLM_VENDOR: 'openai',
  LLM_MODEL: 'bench',
  LLM_BASE_URL: `http://127.0.0.1:${port}/v1`,
  OPENAI_API_KEY: 'bench-key',
};

function agentsDir(name, agents) {
  const dir = join(home, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, frontmatter] of agents)
    writeFileSync(
      join(dir, `${file}.md`),
      `---\nname: ${file}\ndescription: bench agent\n${frontmatter}\n---\nAnswer ok.\n`,
    );
  return dir;
}
const farAway = Array.from({ length: 20 }, (_, i) => [
  `idle${i}`,
  'schedule: "0 0 1 1 *"\nprompt: Never soon.',
]);

function start(args) {
  const child = spawn(process.execPath, [bin, 'start', ...args], {
    env,
    cwd: home,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const until = (pattern, stream = 'stdout') =>
    new Promise((resolve, reject) => {
      const timer = setInterval(() => {
        if (pattern.test(stream === 'stdout' ? stdout : stderr)) {
          clearInterval(timer);
          resolve();
        }
        if (child.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(`birdie start exited: ${stderr}`));
        }
      }, 20);
    });
  const stop = () =>
    new Promise((done) => {
      child.once('close', done);
      child.kill('SIGTERM');
    });
  return { child, until, stop, stderr: () => stderr };
}

const cpuTicks = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
};
const pause = (ms) => new Promise((done) => setTimeout(done, ms));

try {
  // 1. Idle: 20 agents whose schedules are months away.
  const idle = start(['--agents-dir', agentsDir('idle', farAway)]);
  await idle.until(/idle19/);
  await pause(1000);
  const c0 = cpuTicks(idle.child.pid);
  const w0 = performance.now();
  await pause(IDLE_S * 1000);
  const cpuS = (cpuTicks(idle.child.pid) - c0) / TICKS_PER_S;
  const wallS = (performance.now() - w0) / 1000;
  await idle.stop();

  // 2a. A fresh `birdie run` from spawn to its model call.
  const fresh = [];
  for (let i = 0; i < RUNS; i++) {
    arrivals.length = 0;
    const t0 = Date.now();
    await new Promise((done, fail) => {
      const child = spawn(process.execPath, [bin, 'run', 'hello'], { env, cwd: home, stdio: 'ignore' });
      child.on('close', (code) => (code === 0 ? done() : fail(new Error(`birdie run exited ${code}`))));
    });
    fresh.push(arrivals[0] - t0);
  }

  // 2b. `birdie start`: from each due time to its model call.
  arrivals.length = 0;
  const busy = start([
    '--json',
    '--agents-dir',
    agentsDir('busy', [...farAway.slice(1), ['ticker', 'every: 2s\nprompt: Say ok.']]),
  ]);
  await busy.until(new RegExp(`("event":"run-end"[\\s\\S]*){${RUNS}}`), 'stderr');
  await busy.stop();
  const dues = busy
    .stderr()
    .split('\n')
    .filter((l) => l.includes('"event":"run-start"'))
    .map((l) => Date.parse(JSON.parse(l).due));
  const delays = dues.slice(0, RUNS).map((due, i) => arrivals[i] - due);

  const idleRatio = cpuS / wallS;
  const delayRatio = median(delays) / median(fresh);
  const rows = [
    [
      'idle birdie start, 20 agents: CPU / wall',
      `${cpuS.toFixed(3)} s / ${wallS.toFixed(1)} s`,
      idleRatio.toFixed(4),
      '≤ 0.01',
      idleRatio <= 0.01 ? 'ok' : 'MISSED',
    ],
    [
      'fresh birdie run: spawn → model call (median)',
      `${median(fresh).toFixed(0)} ms`,
      '1.00',
      'baseline',
      '',
    ],
    [
      'birdie start: due time → model call (median)',
      `${median(delays).toFixed(0)} ms`,
      delayRatio.toFixed(3),
      '≤ 0.2×',
      delayRatio <= 0.2 ? 'ok' : 'MISSED',
    ],
  ];
  const widths = [0, 1, 2, 3, 4].map((c) =>
    Math.max(...[['case', 'measured', 'ratio', 'target', ''], ...rows].map((r) => r[c].length)),
  );
  for (const row of [['case', 'measured', 'ratio', 'target', ''], ...rows])
    console.log(
      row
        .map((cell, c) => cell.padEnd(widths[c]))
        .join('  ')
        .trimEnd(),
    );
  console.log(
    `(${RUNS} runs each; idle ${IDLE_S} s; due→call delays: ${delays.map((d) => d.toFixed(0)).join(', ')} ms)`,
  );
} finally {
  server.close();
  rmSync(home, { recursive: true, force: true });
}
