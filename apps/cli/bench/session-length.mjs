// Session length at start (issue 36): one `birdie run --session-id` turn on a LONG-turn session against the same on a
// SHORT-turn one, whole process and time to the first model request, alternating, medians. Compaction is on (the
// default) and the context window (a setting, CONTEXT_WINDOW tokens) is small enough that the long session has
// compacted many times while it was written; the short one never has. The sessions are written beforehand through
// @birdie/graph on @birdie/store (a 200-character question and answer per turn), as `birdie run` would have written
// them. The model is a local OpenAI-compatible server that notes when each request arrives.
// Targets: whole process ≤ 1.2×, first model request ≤ 1.1× the short session's.
// Run after `pnpm build`: `node bench/session-length.mjs`; BENCH_LONG_TURNS (1000), BENCH_SHORT_TURNS (20),
// BENCH_RUNS (10), BENCH_BIN.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib.mjs';
import { makeModel } from './peers/agents.mjs';

const LONG = Number(process.env.BENCH_LONG_TURNS ?? 1000);
const SHORT = Number(process.env.BENCH_SHORT_TURNS ?? 20);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const CONTEXT_WINDOW = 8000;
// BENCH_BIN: another build's bin.js (kept inside apps/cli, so it finds the same dependencies), for a before/after.
const BIN = process.env.BENCH_BIN ?? fileURLToPath(new URL('../dist/bin.js', import.meta.url));

let arrivals = [];
const server = createServer((req, res) => {
  arrivals.push(performance.now());
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'text/event-stream');
    const chunk = (delta, finish, extra = {}) =>
      `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
    const usage = { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 };
    res.end(
      `${chunk({ role: 'assistant', content: 'ok' }, null)}${chunk({}, 'stop', { usage })}data: [DONE]\n\n`,
    );
  });
});
await new Promise((done) => server.listen(0, '127.0.0.1', done));

const home = mkdtempSync(join(tmpdir(), 'birdie-bench-length-'));
const birdieHome = join(home, '.birdie');
mkdirSync(birdieHome, { recursive: true });
writeFileSync(
  join(birdieHome, 'config.json'),
  JSON.stringify({ settings: { context_window: CONTEXT_WINDOW } }),
);
const env = {
  PATH: process.env.PATH,
  HOME: home,
  USER: 'bench',
  LANG: 'C.UTF-8',
  NO_COLOR: '1',
  BIRDIE_HOME: birdieHome,
  BIRDIE_BUNDLED_SKILLS: join(home, 'no-skills'),
  LLM_VENDOR: 'openai',
  LLM_MODEL: 'bench',
  LLM_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
  OPENAI_API_KEY: 'bench-key',
};
mkdirSync(env.BIRDIE_BUNDLED_SKILLS);

/** Writes a session of `turns` turns through the graph on the store, with the same context window as the runs. */
async function writeSession(store, agent, turns) {
  const session = await store.sessions.create('bench');
  const question = 'q'.repeat(200);
  let compactions = 0;
  for (let i = 0; i < turns; i++) {
    for await (const event of agent.stream(`${i} ${question}`, { threadId: session.id })) {
      if (event.type === 'error') throw new Error(event.error.message);
      if (event.type === 'compaction') compactions++;
    }
    await store.sessions.recordTurn(session.id, 'bench', { inputTokens: 0, outputTokens: 0 });
  }
  return { id: session.id, compactions };
}

/** One `birdie run` turn on a session: wall ms to exit and to the first model request. */
function runTurn(sessionId) {
  return new Promise((resolve, reject) => {
    arrivals = [];
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [BIN, 'run', '--user', 'bench', '--session-id', sessionId, 'hello'],
      {
        env,
        cwd: home,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) return reject(new Error(`birdie run exited ${code}: ${stderr}`));
      if (arrivals.length === 0) return reject(new Error('no model request'));
      resolve({ ms, first: arrivals[0] - t0, requests: arrivals.length });
    });
  });
}

const rows = [];
let missed = 0;
try {
  const { openStore } = await import('@birdie/store');
  const { loadRegistry, SkillPolicy } = await import('@birdie/registry');
  const { createAgent } = await import('@birdie/graph');
  const store = openStore({ home: birdieHome });
  const registry = await loadRegistry({ dirs: [] });
  const { model } = await makeModel({ tools: false, answerChars: 200 });
  const agent = createAgent({
    model,
    registry,
    policy: new SkillPolicy(registry),
    checkpointer: store.checkpointer,
    options: { contextWindow: CONTEXT_WINDOW },
  });
  const t0 = performance.now();
  const short = await writeSession(store, agent, SHORT);
  const long = await writeSession(store, agent, LONG);
  const writeS = (performance.now() - t0) / 1000;
  await agent.close();
  await store.close();

  const samples = { short: [], long: [] };
  for (let round = 0; round <= RUNS; round++) {
    for (const [name, session] of round % 2
      ? [
          ['long', long],
          ['short', short],
        ]
      : [
          ['short', short],
          ['long', long],
        ]) {
      const sample = await runTurn(session.id);
      if (round > 0) samples[name].push(sample);
    }
  }
  const of = (name, key) => median(samples[name].map((s) => s[key]));
  const row = (what, key, limit) => {
    const ratio = of('long', key) / of('short', key);
    if (ratio > limit) missed++;
    rows.push(
      `| ${what} | ${of('short', key).toFixed(0)} | ${of('long', key).toFixed(0)} | **${ratio.toFixed(2)}×** | ≤ ${limit}× | ${ratio <= limit ? 'ok' : 'MISSED'} |`,
    );
  };
  row('`birdie run` one turn, whole process (wall ms)', 'ms', 1.2);
  row('`birdie run`: spawn → first model request (ms)', 'first', 1.1);
  console.log(
    `\n## Session length at start\n\n\`birdie run --session-id\` on a ${LONG}-turn session against a ${SHORT}-turn one ` +
      `(Node ${process.version}); context window ${CONTEXT_WINDOW} tokens, compaction on: the long session was compacted ` +
      `${long.compactions} times while written, the short one ${short.compactions}; median of ${RUNS} alternating rounds ` +
      `after a warm-up round (sessions written in ${writeS.toFixed(0)} s). Model requests per long turn: ` +
      `${samples.long.map((s) => s.requests).join(', ')}.\n`,
  );
  console.log(`| measurement | ${SHORT} turns | ${LONG} turns | ratio | target | met |`);
  console.log('|---|---:|---:|---:|---|---|');
  for (const line of rows) console.log(line);
  if (missed) console.log(`\nTARGETS MISSED in this run: ${missed}`);
} finally {
  server.close();
  rmSync(home, { recursive: true, force: true });
}
