import { mkdir, writeFile } from 'node:fs/promises';
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
  // And a skill with a `## Tools` section, whose names a typo is closest to.
  await mkdir(join(box.home, 'skills', 'hello'), { recursive: true });
  await writeFile(
    join(box.home, 'skills', 'hello', 'SKILL.md'),
    `---\nname: hello\ndescription: Greets.\n---\n\n## Tools\n\n### greet\ndescription: Greet.\nentrypoint: bash:echo hello\nschema:\n  type: object\n  properties: {}\n`,
  );
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

  it('does not start any server for a typo of a declared tool: the closest name is offered at once', async () => {
    const result = await run(['tool', 'gret']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown tool "gret". Did you mean "greet"?');
    expect(result.stderr).not.toContain('asking the MCP servers');
  });

  it('refuses --session-id, which no MCP server can honour, instead of ignoring it', async () => {
    const result = await run(['tool', 'echo', '--args', '{"message":"x"}', '--session-id', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--session-id does not apply to "echo"');
  });
});
