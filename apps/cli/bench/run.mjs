// Cold-start and one-turn benchmark of the compiled CLI, as ratios to `node -e 0` measured in the same run.
// Prints a Markdown table. Run after `pnpm build`: `pnpm --filter birdie bench`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const pty = require('node-pty');
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'dist', 'bin.js');
const fixtures = join(root, 'test', 'fixtures');
const home = mkdtempSync(join(tmpdir(), 'birdie-bench-'));
const env = {
  PATH: process.env.PATH,
  HOME: home,
  USER: 'bench',
  TERM: 'xterm-256color',
  NO_COLOR: '1',
  BIRDIE_HOME: join(home, '.birdie'),
  LLM_VENDOR: 'scripted',
  LLM_SCRIPT: join(fixtures, 'scripts', 'count.json'),
};
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function timeSpawn(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { env, cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** Spawn in a pseudo-terminal; resolve when `marker` appears on screen (or at exit when marker is null). */
function timePty(args, marker, { type, answer } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = pty.spawn(process.execPath, args, { cols: 120, rows: 40, cwd: home, env });
    let out = '';
    let done = false;
    const finish = (ms) => {
      if (done) return;
      done = true;
      resolve(ms);
      try {
        p.kill();
      } catch {}
    };
    let typed = false;
    p.onData((d) => {
      out += d;
      if (!marker || !out.includes(marker)) return;
      if (!type) return finish(performance.now() - t0);
      if (!typed) {
        typed = true;
        p.write(`${type}\r`);
      }
      if (out.includes(answer)) finish(performance.now() - t0);
    });
    p.onExit(() =>
      marker ? !done && reject(new Error(`exited before ${marker}: ${out}`)) : finish(performance.now() - t0),
    );
    setTimeout(() => !done && reject(new Error(`timeout; screen: ${out}`)), 20_000);
  });
}

async function series(fn) {
  await fn(); // warm the file cache
  const xs = [];
  for (let i = 0; i < RUNS; i++) xs.push(await fn());
  return median(xs);
}

const baseline = await series(() => timeSpawn(['-e', '0']));
const version = await series(() => timeSpawn([bin, '--version']));
const help = await series(() => timeSpawn([bin, '--help']));
const ptyBaseline = await series(() => timePty(['-e', '0'], null));
const firstPrompt = await series(() => timePty([bin], '\u2588'));
// Typed at once at the first prompt; answered once the runtime (LangGraph, store, skills, model) has loaded.
const ready = await series(() => timePty([bin], '\u2588', { type: '/session info', answer: 'turns' }));
const turn = await series(() =>
  timeSpawn([bin, 'run', 'count these', '--skills-dir', join(fixtures, 'skills')]),
);

const skills = spawnSync(process.execPath, [bin, 'skills', 'list', '--json'], {
  env,
  cwd: home,
  encoding: 'utf8',
});
const bundled = skills.stdout.trim().split('\n').filter(Boolean).length;
rmSync(home, { recursive: true, force: true });

const row = (name, ms, base, target) =>
  `| ${name} | ${ms.toFixed(1)} | ${(ms / base).toFixed(2)}× | ${target ?? '–'} |`;
console.log(
  `\nbirdie CLI, median of ${RUNS} runs (Node ${process.version}); ${bundled} bundled skills loaded\n`,
);
console.log('| measurement | ms | ratio to `node -e 0` | target |');
console.log('|---|---:|---:|---:|');
console.log(row('`node -e 0` (baseline, spawnSync)', baseline, baseline));
console.log(row('`birdie --version`', version, baseline, '≤ 2.5×'));
console.log(row('`birdie --help`', help, baseline));
console.log(row('`node -e 0` in a pty (baseline)', ptyBaseline, ptyBaseline));
console.log(row('`birdie` → first interactive prompt (pty)', firstPrompt, ptyBaseline, '≤ 6×'));
console.log(row('same, against the plain spawnSync baseline', firstPrompt, baseline, '≤ 6×'));
console.log(
  row('`birdie` → `/session info` typed at the first prompt, answered (runtime loaded)', ready, ptyBaseline),
);
console.log(row('`birdie run` one turn, scripted model + one `bash:` tool call', turn, baseline));
