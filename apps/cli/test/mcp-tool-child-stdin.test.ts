import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox } from './helpers/env.js';

// Exploratory report: a `node:` tool runs inside birdie's process, and a child process it started with inherited stdin
// (`spawnSync('cat', [], { stdio: 'inherit' })`, `execSync` the same, `fork`) read birdie's own stdin. Under
// `birdie mcp` (and `birdie acp`) that is the protocol stream: the child swallowed the client's next request, which
// was never answered (or, with nothing to read, blocked the call for good). Such a child now reads end of file.
const TOOL = `import { spawnSync } from 'node:child_process';
export function reader() {
  // Says it is reading (on stderr, so the test knows when to send), then reads a line from its stdin.
  const r = spawnSync('sh', ['-c', 'echo reading >&2; head -n 1 | sed "s/^/child read: /" >&2'], {
    stdio: 'inherit',
    timeout: 60_000,
  });
  return 'the child ended with ' + r.status;
}
`;
const SKILL = `---
name: rd
description: a node tool whose child process inherits stdin
enabled_by_default: true
---
## Tools

### rd_reader
description: starts a child that reads its stdin
entrypoint: node:tools.mjs#reader
approval: never
schema:
  type: object
  properties: {}
`;

let box: Sandbox;
let skillsDir: string;
beforeAll(async () => {
  box = await sandbox();
  skillsDir = join(box.dir.path, 'skills');
  await mkdir(join(skillsDir, 'rd'), { recursive: true });
  await writeFile(join(skillsDir, 'rd', 'tools.mjs'), TOOL);
  await writeFile(join(skillsDir, 'rd', 'SKILL.md'), SKILL);
});
afterAll(async () => {
  await box?.cleanup();
});

interface Message {
  jsonrpc: string;
  id?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  method?: string;
}

describe("birdie mcp over stdio: a node: tool's child with inherited stdin", { timeout: 120_000 }, () => {
  it('reads nothing of the protocol stream: the request sent while it runs is answered', async () => {
    const child: ChildProcessWithoutNullStreams = spawn(
      process.execPath,
      [BIN, 'mcp', '--skills-dir', skillsDir, '--approval', 'never'],
      { env: box.env, cwd: box.cwd },
    );
    const messages: Message[] = [];
    let stderr = '';
    let pending = '';
    let code: number | null | undefined;
    const waiters = new Set<() => void>();
    const wake = () => {
      for (const w of waiters) w();
    };
    child.stdin.on('error', () => {});
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      wake();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
        messages.push(JSON.parse(pending.slice(0, nl)) as Message);
        pending = pending.slice(nl + 1);
      }
      wake();
    });
    child.on('close', (exitCode) => {
      code = exitCode;
      wake();
    });
    /** Resolves once `ready()` holds; fails as soon as the server exits without it. */
    const until = (what: string, ready: () => boolean) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (ready()) {
            waiters.delete(check);
            resolve();
          } else if (code !== undefined) {
            waiters.delete(check);
            reject(new Error(`birdie mcp exited (${code}) before ${what}; stderr: ${stderr}`));
          }
        };
        waiters.add(check);
        check();
      });
    const answered = (id: number) => messages.some((m) => m.id === id && m.method === undefined);
    const answer = async (id: number) => {
      await until(`the answer to ${id}`, () => answered(id));
      return messages.find((m) => m.id === id && m.method === undefined)!;
    };
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    try {
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      await answer(1);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'rd_reader', arguments: {} } });
      // The client's next request arrives while the tool's child runs (or after it ended, once it reads nothing).
      await until('the child started', () => stderr.includes('reading\n'));
      send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
      const call = await answer(2);
      expect(JSON.stringify(call.result)).toContain('the child ended with 0');
      // One more request after the call: answered in order, so request 3 must have been answered before it.
      send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
      await answer(4);
      expect(stderr).not.toContain('child read: {');
      expect(answered(3), `request 3 was never answered; stderr: ${stderr}`).toBe(true);
      expect(JSON.stringify((await answer(3)).result)).toContain('rd_reader');
    } finally {
      if (code === undefined) child.kill('SIGKILL');
    }
  });
});
