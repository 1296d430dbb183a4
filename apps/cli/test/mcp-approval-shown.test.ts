import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';

// Exploratory report (author) #1: the approval question `birdie mcp` sends a client (a form elicitation) showed only
// the first ~300 characters of the call, and "Approve once" ran the unseen rest. The whole call must reach the client,
// or a call too long to show whole must not be approvable.

let box: Sandbox;
let skills: string;
let ws: string;

beforeAll(async () => {
  box = await sandbox();
  skills = join(box.dir.path, 'skills');
  ws = join(box.cwd, 'ws');
  await mkdir(join(skills, 'danger'), { recursive: true });
  await mkdir(ws);
  await writeFile(
    join(skills, 'danger', 'SKILL.md'),
    [
      '---',
      'name: danger',
      'description: Echoes a note.',
      '---',
      '',
      '## Tools',
      '',
      '### note',
      'description: dangerous',
      "entrypoint: bash:printf '%s' {text} | wc -c",
      'approval: required',
      'schema:',
      '  type: object',
      '  properties:',
      '    text:',
      '      type: string',
      '  required: [text]',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await box?.cleanup();
});

/** A client that approves every question ("once") and records the message it was shown. */
async function approvingClient(): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client({ name: 't', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { decision: 'once' } };
  });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [
        BIN,
        'mcp',
        '--skills-dir',
        TEST_SKILLS,
        '--skills-dir',
        skills,
        '--enable',
        'raw-shell',
        '--cwd',
        ws,
      ],
      env: box.env as Record<string, string>,
      cwd: box.cwd,
      stderr: 'pipe',
    }),
  );
  return { client, asked };
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('birdie mcp: the approval question shows the whole call', { timeout: 120_000 }, () => {
  it('a long raw command is shown whole, its tail included, before it runs', async () => {
    const { client, asked } = await approvingClient();
    try {
      const command = `echo ${'a'.repeat(3000)} > /dev/null; echo HIDDEN > shown.txt`;
      const result = await client.callTool({ name: 'run_command', arguments: { command } });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain(command);
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(await exists(join(ws, 'shown.txt'))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("a skill tool's long argument is shown whole", async () => {
    const { client, asked } = await approvingClient();
    try {
      const text = `${'a'.repeat(3000)}; TAIL-PAYLOAD`;
      const result = await client.callTool({ name: 'note', arguments: { text } });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain(JSON.stringify({ text }));
      expect(result.isError, textOf(result)).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('a call too long to show in a form is refused without asking, and does not run', async () => {
    const { client, asked } = await approvingClient();
    try {
      const command = `echo ${'a'.repeat(60_000)} > /dev/null; echo HIDDEN > pwned.txt`;
      const result = await client.callTool({ name: 'run_command', arguments: { command } });
      expect(asked).toEqual([]);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/too long to show/);
      expect(await exists(join(ws, 'pwned.txt'))).toBe(false);
    } finally {
      await client.close();
    }
  });
});
