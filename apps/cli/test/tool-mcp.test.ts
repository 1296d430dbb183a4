import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';

// `birdie tool NAME` for a tool that an MCP server lists (a skill's `mcp_server`), not a `## Tools` section: it
// answered "unknown tool" although the agent could call the same tool.

const DEMO_SERVER = join(CLI_ROOT, '..', '..', 'skills', 'mcp-demo', 'dist', 'server.js');

let box: Sandbox;
const run = (args: string[]) => birdie(args, { env: box.env, cwd: box.cwd });

beforeAll(async () => {
  box = await sandbox();
  // The server becomes a skill of the user's own, as a user adds one.
  const added = await run(['mcp', 'add', 'demo', '--', process.execPath, DEMO_SERVER]);
  expect(added.code, added.stderr).toBe(0);
});

afterAll(async () => {
  await box?.cleanup();
});

describe('birdie tool on an MCP server tool', { timeout: 120_000 }, () => {
  it('runs the tool on its server, as the agent would call it', async () => {
    const result = await run(['tool', 'reverse_string', '--args', '{"text":"héllo 👋"}']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('👋 olléh');
    expect(result.stderr).toContain('asking the MCP servers of demo');
  });

  it("refuses arguments the server's schema refuses, as a usage error", async () => {
    const result = await run(['tool', 'echo', '--args', '{"message":7}']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('tool echo:');
    expect(result.stdout).toBe('');
  });

  it('offers the names the servers list for a name nobody has', async () => {
    const result = await run(['tool', 'ech', '--args', '{}']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown tool "ech"');
    expect(result.stderr).toContain('echo');
  });

  it('refuses --session-id, which no MCP server can honour, instead of ignoring it', async () => {
    const result = await run(['tool', 'echo', '--args', '{"message":"x"}', '--session-id', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--session-id does not apply to "echo"');
  });
});
