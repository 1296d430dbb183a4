import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';

// Issue 33: `birdie mcp add|list|remove` — an MCP server becomes a skill of the user's own (the mcp_server
// frontmatter), so trust, policy and approvals stay as they are for it.

const DEMO_SERVER = join(CLI_ROOT, '..', '..', 'skills', 'mcp-demo', 'dist', 'server.js');

let box: Sandbox;
const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  birdie(args, { env: { ...box.env, ...env }, cwd: box.cwd });

beforeAll(async () => {
  box = await sandbox();
});

afterAll(async () => {
  await box?.cleanup();
});

describe('birdie mcp add | list | remove', { timeout: 120_000 }, () => {
  it('adds a stdio server as a skill whose tools a session can use', async () => {
    const added = await run(['mcp', 'add', 'demo', '--', process.execPath, DEMO_SERVER]);
    expect(added.code, added.stderr).toBe(0);
    const file = join(box.home, 'skills', 'demo', 'SKILL.md');
    expect(added.stdout).toContain(`Added ${file}`);
    const text = await readFile(file, 'utf8');
    expect(text).toContain('mcp_server:');
    expect(text).toContain(`command: ${process.execPath}`);
    const check = await run(['skills', 'check']);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    // The server's echo tool, called by a (scripted) model in a session that enables the skill.
    const script = join(box.dir.path, 'echo.json');
    await writeFile(
      script,
      JSON.stringify({
        replies: [
          { match: 'echo it', tool_calls: [{ name: 'echo', args: { message: 'through mcp add' } }] },
          { match: 'echo it', text: 'Echoed.' },
        ],
      }),
    );
    const turn = await run(['run', '--enable', 'demo', '--json', 'echo it'], {
      LLM_VENDOR: 'scripted',
      LLM_SCRIPT: script,
    });
    expect(turn.code, turn.stderr).toBe(0);
    expect(turn.stdout).toContain('through mcp add');
  });

  it('adds a remote server by URL and lists both, marked as added', async () => {
    const added = await run(['mcp', 'add', 'docs', '--url', 'https://mcp.example.com/mcp']);
    expect(added.code, added.stderr).toBe(0);
    const list = await run(['mcp', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    const servers = list.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(servers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'demo', transport: 'stdio', layer: 'user', added: true }),
        expect.objectContaining({
          name: 'docs',
          transport: 'streamable_http',
          target: 'https://mcp.example.com/mcp',
          added: true,
        }),
      ]),
    );
    const plain = await run(['mcp', 'list']);
    expect(plain.stdout).toMatch(
      /\ndocs\s+streamable_http\s+https:\/\/mcp\.example\.com\/mcp\s+user \(mcp add\)\n/,
    );
  });

  it('refuses an invalid name, a name a skill already has, no server and both kinds, with exit 2', async () => {
    const cases: Array<[string[], string]> = [
      [['mcp', 'add', 'Bad_Name', '--', 'node'], 'lowercase words joined by hyphens'],
      [['mcp', 'add', 'demo', '--', 'node', 'other.js'], 'a skill named "demo" already exists'],
      [['mcp', 'add', 'nothing'], 'missing the server'],
      [['mcp', 'add', 'both', '--url', 'https://x.example/mcp', '--', 'node'], 'not both'],
      [['mcp', 'add', 'ftp', '--url', 'ftp://x.example/mcp'], 'must be an http(s) URL'],
    ];
    for (const [args, message] of cases) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toContain(message);
    }
  });

  it('removes only what it added', async () => {
    await mkdir(join(box.home, 'skills', 'hand-made'), { recursive: true });
    await writeFile(
      join(box.home, 'skills', 'hand-made', 'SKILL.md'),
      '---\nname: hand-made\ndescription: Written by hand.\nmcp_server:\n  transport: stdio\n  command: node\n---\n',
    );
    const refused = await run(['mcp', 'remove', 'hand-made']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('was not written by `birdie mcp add`');
    expect(existsSync(join(box.home, 'skills', 'hand-made', 'SKILL.md'))).toBe(true);
    const unknown = await run(['mcp', 'remove', 'no-such']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no MCP server "no-such"');
    const removed = await run(['mcp', 'remove', 'demo']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(join(box.home, 'skills', 'demo'))).toBe(false);
    const list = await run(['mcp', 'list', '--json']);
    expect(list.stdout).not.toContain('"demo"');
  });
});
