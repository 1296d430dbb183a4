import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox } from './helpers/env.js';

// Exploratory report on `birdie mcp`: the skills are reloaded while it runs when a SKILL.md changes, but the problems
// of a file broken by the change were dropped without a word (the tool only vanished from `tools/list`).

let box: Sandbox;
let skillsDir: string;

const skillText = (description: string) =>
  [
    '---',
    'name: echoer',
    ...(description ? [`description: ${description}`] : []),
    '---',
    '',
    '## Tools',
    '',
    '### echo_it',
    'description: Say hi.',
    'entrypoint: bash:echo hi',
    'approval: never',
    'schema: { type: object, properties: {} }',
    '',
  ].join('\n');

beforeAll(async () => {
  box = await sandbox();
  skillsDir = join(box.dir.path, 'reload-skills');
  await mkdir(join(skillsDir, 'echoer'), { recursive: true });
  await writeFile(join(skillsDir, 'echoer', 'SKILL.md'), skillText('Echoes.'));
});

afterAll(async () => {
  await box?.cleanup();
});

describe('birdie mcp over stdio reloads edited skills', { timeout: 120_000 }, () => {
  it("reports a broken SKILL.md's problems on stderr, as skills check writes them; stdout stays JSON-RPC", async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--skills-dir', skillsDir], {
      env: box.env,
      cwd: box.cwd,
    });
    let stdout = '';
    let stderr = '';
    const waiters = new Set<() => void>();
    const wake = () => {
      for (const w of [...waiters]) w();
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      wake();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      wake();
    });
    let ended = false;
    const exited = new Promise<number | null>((resolve) =>
      child.on('close', (code) => {
        ended = true;
        wake();
        resolve(code);
      }),
    );
    /** Resolves once `ready()` holds; fails when the server ends first, or after `ms`. */
    const until = (what: string, ready: () => boolean, ms = 30_000) =>
      new Promise<void>((resolve, reject) => {
        const deadline = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${what} within ${ms} ms; stderr: ${stderr}`));
        }, ms);
        const check = () => {
          if (!ready() && !ended) return;
          waiters.delete(check);
          clearTimeout(deadline);
          if (ready()) resolve();
          else reject(new Error(`birdie mcp ended before ${what}; stderr: ${stderr}`));
        };
        waiters.add(check);
        check();
      });
    const lines = () => stdout.split('\n').filter((line) => line.trim() !== '');
    const has = (match: (m: { id?: unknown; method?: string }) => boolean) =>
      lines().some((line) => {
        try {
          return match(JSON.parse(line) as { id?: unknown; method?: string });
        } catch {
          return false;
        }
      });
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    try {
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      });
      await until('the initialize answer', () => has((m) => m.id === 1));
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      await until('the tools/list answer', () => has((m) => m.id === 2));
      expect(stdout).toContain('"echo_it"');

      // The edit breaks the skill (no description): the watch reloads it and the tool leaves the list.
      const file = join(skillsDir, 'echoer', 'SKILL.md');
      await writeFile(file, skillText(''));
      await until('the tools list_changed notification', () =>
        has((m) => m.method === 'notifications/tools/list_changed'),
      );
      // Its problem is said on stderr, one line as `birdie skills check` writes it (file:line:col, rule).
      const problem = new RegExp(
        `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1:1  error  .*  skill-parser:missing-description$`,
        'm',
      );
      await until('the problem on stderr', () => problem.test(stderr));

      // Everything on stdout is a JSON-RPC 2.0 message, one per line.
      for (const line of lines())
        expect((JSON.parse(line) as { jsonrpc?: string }).jsonrpc, line).toBe('2.0');
    } finally {
      child.stdin.end();
      await exited;
    }
  });
});
