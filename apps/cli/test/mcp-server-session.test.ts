import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox } from './helpers/env.js';

// `birdie mcp` as a session: each connection is one birdie session of the user, and a call runs as the agent's would.
// The builtin tools (memory, scheduler) reach the user's store; a skill's MCP server gets the session's working folder
// as its root; the images it returns reach the client as image blocks.

const REPO_SKILLS = fileURLToPath(new URL('../../../skills/', import.meta.url));
const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

let box: Sandbox;
let skills: string;
let work: string;

beforeAll(async () => {
  box = await sandbox();
  skills = join(box.dir.path, 'session-skills');
  // The bundled memory and scheduler skills, as shipped (off by default: `--enable` turns them on).
  for (const name of ['memory', 'scheduler']) {
    await mkdir(join(skills, name), { recursive: true });
    await copyFile(join(REPO_SKILLS, name, 'SKILL.md'), join(skills, name, 'SKILL.md'));
  }
  await mkdir(join(skills, 'everything'), { recursive: true });
  await writeFile(
    join(skills, 'everything', 'SKILL.md'),
    `---\nname: everything\ndescription: The MCP reference server\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: ${process.execPath}\n  args: ${JSON.stringify([everything, 'stdio'])}\n---\n`,
  );
  work = join(box.dir.path, 'project');
  await mkdir(work);
});

afterAll(async () => {
  await box?.cleanup();
});

async function connect(extra: string[]): Promise<Client> {
  const c = new Client({ name: 'sdk-test', version: '1.0.0' });
  await c.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--skills-dir', skills, ...extra],
      env: box.env as Record<string, string>,
      cwd: box.cwd,
      stderr: 'pipe',
    }),
  );
  return c;
}

type CallResult = Awaited<ReturnType<Client['callTool']>>;
const blocks = (result: CallResult) =>
  result.content as Array<{ type: string; text?: string; mimeType?: string }>;
const textOf = (result: CallResult) =>
  blocks(result)
    .map((c) => c.text ?? '')
    .join('');

describe('birdie mcp runs the builtin tools in its session', { timeout: 120_000 }, () => {
  it('remember / recall reach the user memory; schedule_task / list_tasks / cancel_task the user tasks', async () => {
    const c = await connect(['--enable', 'memory', '--enable', 'scheduler', '--approval', 'never']);
    try {
      const names = (await c.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['remember', 'recall', 'schedule_task', 'list_tasks']));
      const remembered = await c.callTool({ name: 'remember', arguments: { content: 'Likes green tea' } });
      expect(remembered.isError).toBeFalsy();
      expect(textOf(remembered)).toBe('Remembered [1]: Likes green tea');
      expect(textOf(await c.callTool({ name: 'recall', arguments: { query: 'tea' } }))).toBe(
        '- [1] Likes green tea',
      );
      const scheduled = await c.callTool({
        name: 'schedule_task',
        arguments: { prompt: 'water the plants', every: '1h' },
      });
      expect(scheduled.isError).toBeFalsy();
      expect(textOf(scheduled)).toContain('Scheduled task [1]: every 1h');
      expect(textOf(await c.callTool({ name: 'list_tasks', arguments: {} }))).toContain('water the plants');
      const cancelled = await c.callTool({ name: 'cancel_task', arguments: { id: '1' } });
      expect(cancelled.isError).toBeFalsy();
      expect(textOf(await c.callTool({ name: 'list_tasks', arguments: {} }))).not.toContain(
        'water the plants',
      );
    } finally {
      await c.close();
    }
    // The memory is the user's: another connection (another session) recalls it.
    const again = await connect(['--enable', 'memory', '--approval', 'never']);
    try {
      expect(textOf(await again.callTool({ name: 'recall', arguments: {} }))).toBe('- [1] Likes green tea');
    } finally {
      await again.close();
    }
  });
});

describe("birdie mcp gives a skill's MCP server what birdie run gives it", { timeout: 120_000 }, () => {
  it("sets the server's root to the session's working folder (--cwd)", async () => {
    const c = await connect(['--approval', 'never', '--cwd', work]);
    try {
      const roots = await c.callTool({ name: 'get-roots-list', arguments: {} });
      expect(textOf(roots)).not.toContain('no roots');
      expect(textOf(roots)).toContain(pathToFileURL(work).href);
    } finally {
      await c.close();
    }
  });

  it("passes the server's images on as image blocks", async () => {
    const c = await connect(['--approval', 'never']);
    try {
      const result = await c.callTool({ name: 'get-tiny-image', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(blocks(result).filter((b) => b.type === 'image')).toEqual([
        expect.objectContaining({ type: 'image', mimeType: 'image/png', data: expect.any(String) }),
      ]);
      // The text still names it, for a client that shows text only (as for birdie's own read_file).
      expect(textOf(result)).toMatch(/\[image: image\/png, \d+ bytes\]/);
    } finally {
      await c.close();
    }
  });
});
