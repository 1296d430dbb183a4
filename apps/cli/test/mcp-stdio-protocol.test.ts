import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { BIN, type Sandbox, sandbox } from './helpers/env.js';

// Exploratory report on `birdie mcp` over stdio, driven with raw JSON-RPC lines as the tester did: a line that is not
// JSON (or not JSON-RPC) got no answer at all; a line over 10 MiB made the server exit 0 without a word; and a request
// still running when the client closed stdin was never answered.

let box: Sandbox;
let skillsDir: string;

beforeAll(async () => {
  box = await sandbox();
  skillsDir = join(box.dir.path, 'skills');
  await mkdir(join(skillsDir, 'slow'), { recursive: true });
  await writeFile(
    join(skillsDir, 'slow', 'SKILL.md'),
    [
      '---',
      'name: slow',
      'description: A tool that takes a moment.',
      'version: 1.0.0',
      'enabled_by_default: true',
      '---',
      '',
      '## Tools',
      '',
      '### slow_done',
      'description: Sleep a second, then say done.',
      'entrypoint: bash:sleep 1; echo done',
      'approval: never',
      'schema:',
      '  type: object',
      '  properties: {}',
      '',
      '### slow_long',
      'description: Sleep a minute.',
      'entrypoint: bash:sleep 60; echo late',
      'approval: never',
      'schema:',
      '  type: object',
      '  properties: {}',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await box?.cleanup();
});

interface Message {
  jsonrpc: string;
  id?: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  method?: string;
}

/** `birdie mcp` with its stdout read line by line: each line must be one JSON-RPC message. */
function startMcp() {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [BIN, 'mcp', '--skills-dir', skillsDir, '--approval', 'never'],
    { env: box.env, cwd: box.cwd },
  );
  const messages: Message[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  let pending = '';
  let code: number | null | undefined;
  // A server that died before reading what was written fails the test through `next`, not as an EPIPE.
  child.stdin.on('error', () => {});
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
      messages.push(JSON.parse(pending.slice(0, nl)) as Message);
      pending = pending.slice(nl + 1);
    }
    for (const wake of waiters) wake();
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (exitCode) => {
      code = exitCode;
      for (const wake of waiters) wake();
      resolve(exitCode);
    });
  });
  /** The first message `match` accepts; fails as soon as the server exits without one. */
  const next = (what: string, match: (m: Message) => boolean) =>
    new Promise<Message>((resolve, reject) => {
      const check = () => {
        const found = messages.find(match);
        if (found) {
          waiters.delete(check);
          resolve(found);
        } else if (code !== undefined) {
          waiters.delete(check);
          reject(new Error(`birdie mcp exited (${code}) before ${what}; stderr: ${stderr}`));
        }
      };
      waiters.add(check);
      check();
    });
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const answer = (id: number) => next(`the answer to ${id}`, (m) => m.id === id && m.method === undefined);
  const initialize = async () => {
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect((await answer(1)).result?.serverInfo).toMatchObject({ name: 'birdie' });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  };
  return {
    child,
    messages,
    send,
    next,
    answer,
    initialize,
    exited,
    stderr: () => stderr,
    stop: () => {
      if (code === undefined) child.kill('SIGKILL');
    },
  };
}

describe('birdie mcp over stdio: the JSON-RPC framing', { timeout: 120_000 }, () => {
  // Reported: a request whose params have the wrong shape (`tools/call` with a number for `name`, `prompts/get` with a
  // list, `tools/list` with a number for `cursor`) got -32603 "internal error" with zod's issue list as its message.
  it('answers params of the wrong shape with -32602 and one readable sentence, and keeps serving', async () => {
    const mcp = startMcp();
    try {
      await mcp.initialize();
      mcp.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 5 } });
      mcp.send({ jsonrpc: '2.0', id: 3, method: 'prompts/get', params: { name: [] } });
      mcp.send({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { cursor: 5 } });
      mcp.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow_done', arguments: 'x' } });
      const expected: Array<[number, string]> = [
        [2, 'Invalid params of tools/call: params.name: expected string, received number'],
        [3, 'Invalid params of prompts/get: params.name: expected string, received array'],
        [4, 'Invalid params of tools/list: params.cursor: expected string, received number'],
        [5, 'Invalid params of tools/call: params.arguments: expected record, received string'],
      ];
      for (const [id, message] of expected)
        expect((await mcp.answer(id)).error, String(id)).toEqual({ code: -32602, message });
      mcp.send({ jsonrpc: '2.0', id: 6, method: 'tools/list' });
      expect((await mcp.answer(6)).result?.tools).toBeDefined();
    } finally {
      mcp.stop();
    }
  });

  it('answers a line that is not JSON with -32700 and one that is not JSON-RPC with -32600, and keeps serving', async () => {
    const mcp = startMcp();
    try {
      await mcp.initialize();
      mcp.child.stdin.write('{not json\n');
      const parseError = await mcp.next('the parse error', (m) => m.error?.code === -32700);
      expect(parseError).toMatchObject({ jsonrpc: '2.0', id: null });
      expect(parseError.error?.message).toMatch(/parse error/i);

      mcp.send({ hello: 'world' });
      const invalid = await mcp.next('the invalid request error', (m) => m.error?.code === -32600);
      expect(invalid).toMatchObject({ jsonrpc: '2.0', id: null });
      // A request whose id can be read is answered with that id.
      mcp.send({ jsonrpc: '1.0', id: 7, method: 'ping' });
      expect((await mcp.answer(7)).error?.code).toBe(-32600);

      mcp.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
      expect((await mcp.answer(2)).result).toEqual({});
      // stdout carried only protocol (each line parsed as JSON), every message JSON-RPC 2.0.
      for (const m of mcp.messages) expect(m.jsonrpc).toBe('2.0');
      expect(mcp.stderr()).toMatch(/not JSON/);
      mcp.child.stdin.end();
      expect(await mcp.exited).toBe(0);
    } finally {
      mcp.stop();
    }
  });

  it('refuses a line over 10 MiB with a JSON-RPC error and keeps serving the lines after it', async () => {
    const mcp = startMcp();
    try {
      await mcp.initialize();
      const huge = JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'ping',
        params: { pad: 'x'.repeat(11 * 1024 * 1024) },
      });
      mcp.child.stdin.write(`${huge}\n`);
      mcp.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
      const refused = await mcp.next('the refusal of the long line', (m) => m.error?.code === -32600);
      expect(refused.id).toBe(2);
      expect(refused.error?.message).toMatch(/10485760 bytes/);
      expect((await mcp.answer(3)).result).toEqual({});
      mcp.child.stdin.end();
      expect(await mcp.exited).toBe(0);
    } finally {
      mcp.stop();
    }
  });

  it('answers a request still running when the client closes stdin, then exits 0', async () => {
    const mcp = startMcp();
    try {
      await mcp.initialize();
      mcp.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow_done', arguments: {} } });
      mcp.child.stdin.end();
      const answer = await mcp.answer(2);
      expect(answer.result).toMatchObject({ content: [{ type: 'text', text: 'done\n' }] });
      expect(await mcp.exited).toBe(0);
    } finally {
      mcp.stop();
    }
  });

  it('SIGTERM during a call ends its run as cancelled in the run log, not left running to be reaped as died', async () => {
    const runsOf = async () => {
      const logs = await birdie(['logs', '--json'], { env: box.env, cwd: box.cwd });
      expect(logs.code, logs.stderr).toBe(0);
      return logs.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { id: number; status: string; toolCalls: Array<{ name: string }> })
        .filter((run) => run.toolCalls.some((call) => call.name === 'slow_long'));
    };
    const mcp = startMcp();
    try {
      await mcp.initialize();
      mcp.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow_long', arguments: {} } });
      // The call has started (its journal row is written) before the signal comes.
      let running: Awaited<ReturnType<typeof runsOf>> = [];
      while (running.length === 0) {
        running = (await runsOf()).filter((run) => run.status === 'running');
        if (running.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      mcp.child.kill('SIGTERM');
      await mcp.exited;
      const [run] = (await runsOf()).filter((r) => r.id === running[0]!.id);
      expect(run?.status).toBe('cancelled');
    } finally {
      mcp.stop();
    }
  });
});
