// `birdie mcp`'s first tool result after start against the same call through `birdie tool`, same run, interleaved
// rounds: each case is timed from spawning the built CLI to the tool's output in hand (the MCP SDK's client over
// stdio for `birdie mcp`: initialize, then tools/call; stdout for `birdie tool`). Target: ≤ 1.5×.
// Run after `pnpm build`: `node bench/mcp-first-call.mjs` (BENCH_RUNS=N rounds, default 10).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { median, ratio } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'dist', 'bin.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const TARGET = 1.5;

const home = mkdtempSync(join(tmpdir(), 'birdie-bench-mcp-'));
const skills = join(home, 'skills');
mkdirSync(join(skills, 'greet'), { recursive: true });
// A `bash:` tool that needs no approval: the call itself, not a question, is what is timed.
writeFileSync(
  join(skills, 'greet', 'SKILL.md'),
  "---\nname: greet\ndescription: Greets.\n---\n\n## Tools\n\n### greet\ndescription: Say hello to someone.\nentrypoint: bash:printf 'hello %s\\n' {name}\nschema:\n  type: object\n  properties:\n    name:\n      type: string\n  required: [name]\n",
);
const env = {
  PATH: process.env.PATH,
  HOME: home,
  USER: 'bench',
  LANG: 'C.UTF-8',
  BIRDIE_HOME: join(home, '.birdie'),
};
const ARGS = { name: 'bench' };
const EXPECTED = 'hello bench';

/** `birdie tool greet --args …`: from spawn to the result on stdout (the process then exits on its own). */
function viaTool() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [bin, 'tool', 'greet', '--args', JSON.stringify(ARGS), '--skills-dir', skills],
      { env, cwd: home, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    let ms;
    child.stdout.on('data', (d) => {
      out += d;
      if (ms === undefined && out.includes(EXPECTED)) ms = performance.now() - t0;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 && ms !== undefined
        ? resolve({ ms })
        : reject(new Error(`birdie tool exited ${code}: ${err}`)),
    );
  });
}

/** `birdie mcp` spawned by the SDK's client: from spawn to the tools/call result. */
async function viaMcp() {
  const t0 = performance.now();
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp', '--skills-dir', skills],
      env,
      cwd: home,
      stderr: 'ignore',
    }),
  );
  const result = await client.callTool({ name: 'greet', arguments: ARGS });
  const ms = performance.now() - t0;
  const text = result.content.map((c) => c.text ?? '').join('');
  await client.close();
  if (!text.includes(EXPECTED)) throw new Error(`birdie mcp answered: ${JSON.stringify(result)}`);
  return { ms };
}

const samples = { tool: [], mcp: [] };
try {
  // One warm-up round, then RUNS rounds alternating the two (which goes first alternates too).
  for (let round = 0; round <= RUNS; round++) {
    const order = round % 2 ? ['mcp', 'tool'] : ['tool', 'mcp'];
    for (const name of order) {
      const sample = await (name === 'tool' ? viaTool() : viaMcp());
      if (round > 0) samples[name].push(sample.ms);
    }
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}

const tool = median(samples.tool);
const mcp = median(samples.mcp);
const met = mcp / tool <= TARGET;
console.log(
  `\n## birdie mcp: first tool result after start\n\nMedians of ${RUNS} alternating rounds, Node ${process.version}: ` +
    'from spawning the built CLI to the result of one `bash:` tool call in hand.\n',
);
console.log('| measurement | wall ms | ratio to `birdie tool` | target | met |');
console.log('|---|---:|---:|---|---|');
console.log(`| \`birdie tool greet\` (result on stdout) | ${tool.toFixed(0)} | **1.00×** | – | |`);
console.log(
  `| \`birdie mcp\` (SDK client: initialize, tools/call) | ${mcp.toFixed(0)} | **${ratio(mcp, tool)}** | ≤ ${TARGET}× | ${met ? 'ok' : '**MISSED**'} |`,
);
console.log(
  met
    ? '\nThe target was met in this run.'
    : `\nTARGET MISSED in this run: birdie mcp ${ratio(mcp, tool)} > ${TARGET}×`,
);
