import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';

// Exploratory report (author) #12: once `birdie skills new notes-helper` had scaffolded a skill (its example tool is
// `notes_helper_echo`), `birdie tool echo` (an MCP server's tool) answered "Did you mean notes_helper_echo?": the
// typo guard took a name contained in a declared one for a typo of it, and never asked the servers.

const DEMO_SERVER = join(CLI_ROOT, '..', '..', 'skills', 'mcp-demo', 'dist', 'server.js');

let box: Sandbox;
const run = (args: string[]) => birdie(args, { env: box.env, cwd: box.cwd });

beforeAll(async () => {
  box = await sandbox();
  const added = await run(['mcp', 'add', 'demo', '--', process.execPath, DEMO_SERVER]);
  expect(added.code, added.stderr).toBe(0);
});

afterAll(async () => {
  await box?.cleanup();
});

describe('birdie tool: an MCP tool whose name a declared tool contains', { timeout: 120_000 }, () => {
  it('runs echo on its server after a scaffolded skill declares notes_helper_echo', async () => {
    const scaffolded = await run(['skills', 'new', 'notes-helper']);
    expect(scaffolded.code, scaffolded.stderr).toBe(0);
    const result = await run(['tool', 'echo', '--args', '{"message":"hi"}']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('hi');
  });

  it('a real typo of the declared tool is still offered at once, without asking the servers', async () => {
    const result = await run(['tool', 'notes_helper_ecoh']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Did you mean "notes_helper_echo"?');
    expect(result.stderr).not.toContain('asking the MCP servers');
  });
});
