import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { BIN, type Sandbox, sandbox } from './helpers/env.js';

// Exploratory MCP report, item 3: one click on "Approve for this session" at a raw shell command's question let every
// later command of that tool run unasked — `echo hi` approved, then `rm -rf …` ran without a question. The REPL asks a
// typed confirmation before it allows every command of a shell tool; a form cannot, so `birdie mcp` offers the
// command's kind (`run_command(echo one *)`) for the session instead, and a whole-tool answer counts as once.

const rawShell = fileURLToPath(new URL('./fixtures/skills/raw-shell', import.meta.url));
const skillsDir = fileURLToPath(new URL('./fixtures/skills', import.meta.url));

let box: Sandbox;

beforeAll(async () => {
  box = await sandbox();
});

afterAll(async () => {
  await box?.cleanup();
});

interface Question {
  message: string;
  choices: string[];
}

/** An SDK client over stdio that answers every approval question with `decision` (recording each question). */
async function connect(decision: (choices: string[]) => string): Promise<{ c: Client; asked: Question[] }> {
  const asked: Question[] = [];
  const c = new Client(
    { name: 'shell-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  c.setRequestHandler(ElicitRequestSchema, async (request) => {
    const schema = (request.params as { requestedSchema?: unknown }).requestedSchema as {
      properties: { decision: { oneOf: Array<{ const: string; title: string }> } };
    };
    const choices = schema.properties.decision.oneOf.map((o) => `${o.const}: ${o.title}`);
    asked.push({ message: request.params.message, choices });
    return { action: 'accept', content: { decision: decision(choices) } };
  });
  await c.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--skills-dir', skillsDir, '--enable', 'raw-shell'],
      env: box.env as Record<string, string>,
      cwd: box.cwd,
      stderr: 'pipe',
    }),
  );
  return { c, asked };
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');

describe('birdie mcp: a raw shell command approved for the session', { timeout: 120_000 }, () => {
  it('does not approve every later command in one click: "session" at a command question counts as once', async () => {
    expect(rawShell).toContain('raw-shell');
    const { c, asked } = await connect(() => 'session');
    try {
      expect(textOf(await c.callTool({ name: 'run_command', arguments: { command: 'echo one' } }))).toBe(
        'one\n',
      );
      expect(textOf(await c.callTool({ name: 'run_command', arguments: { command: 'echo two' } }))).toBe(
        'two\n',
      );
      // Both asked: the first answer allowed nothing beyond its own call.
      expect(asked.map((q) => q.message)).toEqual([
        'Allow this call? Run shell command: echo one',
        'Allow this call? Run shell command: echo two',
      ]);
      // The form never offered the whole tool for a shell command.
      for (const q of asked) expect(q.choices.join('\n')).not.toMatch(/^session:/m);
    } finally {
      await c.close();
    }
  });

  it("offers the command's kind for the session: later commands of that kind run unasked, others are asked", async () => {
    const { c, asked } = await connect(
      (choices) => choices.find((choice) => choice.startsWith('pattern:'))?.split(':')[0] ?? 'reject',
    );
    try {
      expect(textOf(await c.callTool({ name: 'run_command', arguments: { command: 'echo one' } }))).toBe(
        'one\n',
      );
      expect(asked).toHaveLength(1);
      expect(asked[0]!.choices).toEqual([
        'once: Approve once',
        'pattern: Approve run_command(echo one *) for this session',
        'reject: Reject',
      ]);
      expect(textOf(await c.callTool({ name: 'run_command', arguments: { command: 'echo one more' } }))).toBe(
        'one more\n',
      );
      expect(asked).toHaveLength(1);
      // Another command, and the allowed one chained with another: asked again.
      await c.callTool({ name: 'run_command', arguments: { command: 'echo two' } });
      await c.callTool({ name: 'run_command', arguments: { command: 'echo one; pwd' } });
      expect(asked.map((q) => q.message).slice(1)).toEqual([
        'Allow this call? Run shell command: echo two',
        'Allow this call? Run shell command: echo one; pwd',
      ]);
    } finally {
      await c.close();
    }
  });

  it('offers no session choice for a call an ask rule asks about (no session approval answers it)', async () => {
    const added = await birdie(['config', 'add', 'permissions.ask', 'run_command(echo *)'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(added.code, added.stderr).toBe(0);
    const { c, asked } = await connect(() => 'session');
    try {
      expect(textOf(await c.callTool({ name: 'run_command', arguments: { command: 'echo one' } }))).toBe(
        'one\n',
      );
      expect(textOf(await c.callTool({ name: 'run_command', arguments: { command: 'echo one' } }))).toBe(
        'one\n',
      );
      expect(asked).toHaveLength(2);
      expect(asked[0]!.choices).toEqual(['once: Approve once', 'reject: Reject']);
    } finally {
      await c.close();
    }
  });
});
