import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox } from './helpers/env.js';

// An exploratory tester's report on `birdie mcp`: a call of a tool that does not exist was answered as a tool's
// failed result (`isError`) instead of the JSON-RPC error the MCP specification asks for (-32602, Invalid params);
// and `resources/list` offered a reference file that `resources/read` then refused (a symlink leading out of the
// skill's folder).

let box: Sandbox;
let skills: string;
/** A file outside every skill folder, which a skill's reference symlink points at. */
let outside: string;

/** A tool skill, and a knowledge skill with one reference file and one symlink leading out of its folder. */
async function writeFixtures(root: string): Promise<void> {
  skills = join(root, 'catalog-skills');
  await mkdir(join(skills, 'shout'), { recursive: true });
  await writeFile(
    join(skills, 'shout', 'SKILL.md'),
    [
      '---',
      'name: shout',
      'description: Shouts a word back.',
      '---',
      '',
      '## Tools',
      '',
      '### shout',
      'description: Print the word in capitals.',
      "entrypoint: bash:printf '%s\\n' {word} | tr a-z A-Z",
      'schema:',
      '  type: object',
      '  properties:',
      '    word:',
      '      type: string',
      '  required: [word]',
      '',
    ].join('\n'),
  );
  const reference = join(skills, 'house-style', 'reference');
  await mkdir(reference, { recursive: true });
  await writeFile(
    join(skills, 'house-style', 'SKILL.md'),
    '---\nname: house-style\ndescription: How we write.\n---\n\n# House style\n\nShort sentences.\n',
  );
  await writeFile(join(reference, 'words.md'), 'Say "use", not "utilise".\n');
  outside = join(root, 'outside.md');
  await writeFile(outside, "not the skill's to give\n");
  await symlink(outside, join(reference, 'secret.md'));
}

beforeAll(async () => {
  box = await sandbox();
  await writeFixtures(box.dir.path);
});

afterAll(async () => {
  await box?.cleanup();
});

async function connected(extra: string[] = []): Promise<Client> {
  const c = new Client({ name: 'catalog-test', version: '1.0.0' }, { capabilities: {} });
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

/** What a rejected request was rejected with. */
async function rejection(request: Promise<unknown>): Promise<unknown> {
  return request.then(
    (value) => ({ resolved: value }),
    (error: unknown) => error,
  );
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');

describe('birdie mcp: errors of tools/call and resources', { timeout: 120_000 }, () => {
  it('answers a call of a tool that does not exist with JSON-RPC -32602 naming it', async () => {
    const c = await connected();
    try {
      const error = await rejection(c.callTool({ name: 'no_such_tool', arguments: {} }));
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).message).toContain('"no_such_tool"');
    } finally {
      await c.close();
    }
  });

  it('answers a typo of a tool with -32602, offering the close name', async () => {
    const c = await connected();
    try {
      const error = await rejection(c.callTool({ name: 'shuot', arguments: { word: 'x' } }));
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).message).toContain('"shuot"');
      expect((error as McpError).message).toContain('shout');
      // The connection goes on: a real tool still runs.
      expect(textOf(await c.callTool({ name: 'shout', arguments: { word: 'ok' } }))).toBe('OK\n');
    } finally {
      await c.close();
    }
  });

  it('keeps a tool of a skill the session may not use a refused call (isError), as it was', async () => {
    const c = await connected(['--disable', 'shout']);
    try {
      const refused = await c.callTool({ name: 'shout', arguments: { word: 'x' } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('is not available here');
    } finally {
      await c.close();
    }
  });

  it('lists only the reference files a read serves: not a symlink leading out of the skill folder', async () => {
    const c = await connected();
    try {
      const uris = (await c.listResources()).resources.map((r) => r.uri);
      expect(uris).toContain('skill://house-style/reference/words.md');
      expect(uris).not.toContain('skill://house-style/reference/secret.md');
      // Every listed resource reads.
      for (const uri of uris) await c.readResource({ uri });
      // The read of the symlink keeps its clear refusal.
      const error = await rejection(c.readResource({ uri: 'skill://house-style/reference/secret.md' }));
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).message).toContain('resolves outside the skill folder');
    } finally {
      await c.close();
    }
  });
});
