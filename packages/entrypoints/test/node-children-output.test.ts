import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  configureSandbox,
  EntrypointError,
  type OutputChunk,
  resolveEntrypoint,
  sandboxStatus,
} from '../src/index.js';
import { tempDir } from './helpers.js';
import { compiledPackage } from './parent-process.js';

/**
 * Exploratory report (CLI): a `node:` tool that starts a child process with inherited stdio (`spawnSync(…, { stdio:
 * 'inherit' })`, `execSync` the same, `fork`, which inherits by default). Sandboxed, the child wrote into the result's
 * channel (the runner's stdout) and the call failed; in-process, it wrote into the application's own stdout (`birdie
 * run --json` got a bare line among its events). Its output goes where the tool's `console.log` goes: stderr.
 */
const TOOLS = `import { execFileSync, execSync, fork, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
const forked = fileURLToPath(new URL('./forked.cjs', import.meta.url));
export function children() {
  spawnSync('echo', ['from spawnSync'], { stdio: 'inherit' });
  execSync('echo from execSync', { stdio: 'inherit' });
  execFileSync('echo', ['from execFileSync'], { stdio: ['ignore', 'inherit', 'inherit'] });
  spawnSync('sh', ['-c', 'echo from fd 1 given as a number'], { stdio: [0, 1, 2] });
  spawnSync('sh', ['-c', 'echo from process.stdout given as a stream'], { stdio: ['ignore', process.stdout, 'inherit'] });
  return 'result';
}
export async function asyncChildren() {
  const ended = (child) => new Promise((resolve, reject) => { child.on('error', reject); child.on('close', resolve); });
  await ended(spawn('echo', ['from spawn'], { stdio: 'inherit' }));
  await ended(fork(forked, ['from fork']));
  return 'result';
}
`;
const FORKED = 'console.log(process.argv[2]);\n';
const CHILD_LINES = [
  'from spawnSync',
  'from execSync',
  'from execFileSync',
  'from fd 1 given as a number',
  'from process.stdout given as a stream',
];
const ASYNC_LINES = ['from spawn', 'from fork'];

let skillDir: string;
beforeAll(async () => {
  skillDir = await tempDir('birdie-node-children-');
  await mkdir(skillDir, { recursive: true });
  await writeFile(join(skillDir, 'tools.mjs'), TOOLS);
  await writeFile(join(skillDir, 'forked.cjs'), FORKED);
});

afterEach(() => {
  configureSandbox(undefined);
});

async function requireBubblewrap(): Promise<void> {
  const status = await sandboxStatus();
  if (!status.available) {
    throw new Error(
      `the sandbox tests need a working bubblewrap: ${status.reason}. (on Debian/Ubuntu: apt-get install -y bubblewrap)`,
    );
  }
}

describe("a sandboxed node: tool's child processes", { timeout: 60_000 }, () => {
  it.each([
    ['children', CHILD_LINES],
    ['asyncChildren', ASYNC_LINES],
  ])(
    '%s: the result arrives whole; the children print on stderr, as console.log does',
    async (name, lines) => {
      await requireBubblewrap();
      configureSandbox('always');
      const chunks: OutputChunk[] = [];
      const ep = resolveEntrypoint(`node:tools.mjs#${name}`, { skillDir });
      const result = await ep.run({}, { onOutput: (chunk) => chunks.push(chunk) }).catch((error: unknown) => {
        if (error instanceof EntrypointError) return `${error.code}: ${error.message}`;
        throw error;
      });
      expect(result).toEqual({ output: 'result', truncated: false });
      expect(chunks.every((c) => c.stream === 'stderr')).toBe(true);
      const heard = chunks.map((c) => c.text).join('');
      for (const line of lines) expect(heard).toContain(`${line}\n`);
    },
  );
});

/**
 * A sandboxed call's stdin is the runner's: the arguments' pipe, read to its end before the tool's module is imported.
 * A child with inherited stdin, at import or in the call, reads end of file from /dev/null, not a descriptor of it.
 */
const STDIN_READERS = `import { spawnSync } from 'node:child_process';
const childReads = () => {
  const child = spawnSync('sh', ['-c', 'readlink /proc/self/fd/0; head -c 200'], { stdio: ['inherit', 'pipe', 'inherit'] });
  return String(child.stdout);
};
const atImport = childReads();
export function read(args) {
  return { args, atImport, inCall: childReads() };
}
`;

describe("a sandboxed node: tool's child processes and the runner's stdin", { timeout: 60_000 }, () => {
  it('read nothing (/dev/null), at import or in the call; the arguments reach the function', async () => {
    await requireBubblewrap();
    configureSandbox('always');
    await writeFile(join(skillDir, 'stdin-readers.mjs'), STDIN_READERS);
    const ep = resolveEntrypoint('node:stdin-readers.mjs#read', { skillDir });
    const result = await ep.run({ text: 'the arguments' });
    expect(JSON.parse(result.output)).toEqual({
      args: { text: 'the arguments' },
      atImport: '/dev/null\n',
      inCall: '/dev/null\n',
    });
  });
});

/** Runs `body` in a Node process of its own (a stand-in for birdie) that imports the package: its stdout and stderr. */
async function inParent(body: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const index = await compiledPackage();
  const script = join(skillDir, `parent-${Math.random().toString(36).slice(2)}.mjs`);
  await writeFile(script, `import * as entrypoints from ${JSON.stringify(index)};\n${body}\n`);
  const env = { ...process.env };
  delete env.BIRDIE_SANDBOX;
  const child = spawn(process.execPath, [script], { cwd: skillDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  return { code, stdout, stderr };
}

describe("an in-process node: tool's child processes", { timeout: 60_000 }, () => {
  it.each([
    ['children', CHILD_LINES],
    ['asyncChildren', ASYNC_LINES],
  ])("%s: the children print on the application's stderr, never its stdout", async (name, lines) => {
    const body = `
import { spawnSync } from 'node:child_process';
const ep = entrypoints.resolveEntrypoint(${JSON.stringify(`node:tools.mjs#${name}`)}, { skillDir: ${JSON.stringify(skillDir)} });
if (ep.confinement !== 'none') throw new Error('not in-process: ' + ep.confinement);
const result = await ep.run({});
process.stderr.write('RESULT ' + JSON.stringify(result) + '\\n');
// the application's own child, outside any tool call, still writes to its stdout
spawnSync('echo', ['the application'], { stdio: 'inherit' });
`;
    const { code, stdout, stderr } = await inParent(body);
    expect(stderr).toContain('RESULT {"output":"result","truncated":false}');
    expect(code).toBe(0);
    expect(stdout).toBe('the application\n');
    for (const line of lines) expect(stderr).toContain(`${line}\n`);
  });
});

/**
 * Exploratory report (birdie acp, birdie mcp): an in-process `node:` tool whose child inherits stdin
 * (`spawnSync('cat', [], { stdio: 'inherit' })`, `execSync` the same, `fork`, which inherits by default) read the
 * application's own stdin — the protocol stream — and swallowed the editor's next request, or blocked waiting for one.
 * Such a child reads from nothing (end of file at once); the application still reads what it was sent.
 */
const READERS = `import { execFileSync, execSync, fork, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
const reader = fileURLToPath(new URL('./reader.cjs', import.meta.url));
// Says it is reading (on stderr, so the test knows when to write), then reads a line from its stdin.
const READ = 'echo reading >&2; head -n 1 | sed "s/^/child read: /" >&2';
const ended = (child) => new Promise((resolve, reject) => { child.on('error', reject); child.on('close', resolve); });
export const readers = {
  spawnSyncInherit: () => spawnSync('sh', ['-c', READ], { stdio: 'inherit' }),
  execSyncInherit: () => execSync(READ, { stdio: 'inherit' }),
  execFileSyncFd0: () => execFileSync('sh', ['-c', READ], { stdio: [0, 'pipe', 'inherit'] }),
  spawnSyncStream: () => spawnSync('sh', ['-c', READ], { stdio: [process.stdin, 'inherit', 'inherit'] }),
  spawnInherit: () => ended(spawn('sh', ['-c', READ], { stdio: ['inherit', 'ignore', 'inherit'] })),
  fork: () => ended(fork(reader)),
};
export async function read({ how }) {
  await readers[how]();
  return 'read with ' + how;
}
`;
const READER = `process.stderr.write('reading\\n');
let text = '';
process.stdin.on('data', (chunk) => { text += chunk; });
process.stdin.on('end', () => { process.stderr.write('child read: ' + text); process.exit(0); });
`;

describe("an in-process node: tool's child processes and the application's stdin", {
  timeout: 60_000,
}, () => {
  beforeAll(async () => {
    await writeFile(join(skillDir, 'readers.mjs'), READERS);
    await writeFile(join(skillDir, 'reader.cjs'), READER);
  });

  it.each([
    'spawnSyncInherit',
    'execSyncInherit',
    'execFileSyncFd0',
    'spawnSyncStream',
    'spawnInherit',
    'fork',
  ])(
    '%s: the child reads nothing of it; the application reads what it was sent after the call',
    async (how) => {
      const index = await compiledPackage();
      const script = join(skillDir, `stdin-parent-${Math.random().toString(36).slice(2)}.mjs`);
      await writeFile(
        script,
        `import * as entrypoints from ${JSON.stringify(index)};
const ep = entrypoints.resolveEntrypoint('node:readers.mjs#read', { skillDir: ${JSON.stringify(skillDir)} });
if (ep.confinement !== 'none') throw new Error('not in-process: ' + ep.confinement);
const result = await ep.run({ how: ${JSON.stringify(how)} });
process.stderr.write('RESULT ' + JSON.stringify(result) + '\\n');
let input = '';
for await (const chunk of process.stdin) input += chunk;
process.stderr.write('APPLICATION READ ' + JSON.stringify(input) + '\\n');
`,
      );
      const env = { ...process.env };
      delete env.BIRDIE_SANDBOX;
      const child = spawn(process.execPath, [script], {
        cwd: skillDir,
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stderr = '';
      const reading = new Promise<void>((resolve) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk;
          if (stderr.includes('reading\n')) resolve();
        });
      });
      child.stdout.resume();
      const code = new Promise<number | null>((resolve, reject) => {
        child.on('error', reject);
        child.on('close', resolve);
      });
      // The next protocol message arrives while the tool's child is running (or after it ended, once fixed).
      await Promise.race([reading, code]);
      child.stdin.end('{"the next request":1}\n');
      expect(await code, stderr).toBe(0);
      expect(stderr).toContain(`RESULT {"output":"read with ${how}","truncated":false}`);
      expect(stderr).not.toContain('child read: {');
      expect(stderr).toContain('APPLICATION READ "{\\"the next request\\":1}\\n"');
    },
  );
});
