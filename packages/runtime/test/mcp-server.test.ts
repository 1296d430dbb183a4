import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '@birdie/store';
import { makeTempDir } from '@birdie/test-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ElicitRequestSchema,
  type ElicitResult,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type McpHost, openMcpHost } from '../src/mcp-host.js';
import { createMcpServer } from '../src/mcp-server.js';

// `birdie mcp` as an embedder runs it: a host over a BIRDIE_HOME, the SDK's Server connected in process to the
// SDK's Client. The CLI's tests drive the same server over stdio and HTTP.

const SKILL = `---
name: words
description: Word tools.
---

## Tools

### upper
description: Print a word in capitals.
entrypoint: bash:printf '%s\\n' {word} | tr a-z A-Z
schema: { type: object, properties: { word: { type: string } }, required: [word] }

### lower
description: Print a word in small letters.
entrypoint: bash:printf '%s\\n' {word} | tr A-Z a-z
schema: { type: object, properties: { word: { type: string } }, required: [word] }
`;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(
  settings: Record<string, unknown>,
  flags: Record<string, string | string[]> = {},
  /** The client's answers, in turn (then: accept with no content). */
  answers: ElicitResult[] = [],
) {
  const dir = await makeTempDir('birdie-mcp-');
  cleanups.push(dir.cleanup);
  const home = join(dir.path, '.birdie');
  await mkdir(join(home, 'skills', 'words'), { recursive: true });
  await writeFile(join(home, 'skills', 'words', 'SKILL.md'), SKILL);
  await mkdir(join(home, 'skills', 'quiet'), { recursive: true });
  await writeFile(
    join(home, 'skills', 'quiet', 'SKILL.md'),
    "---\nname: quiet\ndescription: Off unless enabled.\nenabled_by_default: false\n---\n\n## Tools\n\n### hush\ndescription: Says nothing much.\nentrypoint: bash:printf 'shh\\n'\nschema: { type: object, properties: {} }\n",
  );
  await writeFile(join(home, 'config.json'), JSON.stringify({ settings }));
  const work = join(dir.path, 'work');
  await mkdir(work);
  const warnings: string[] = [];
  const io = {
    env: { PATH: process.env.PATH, HOME: work, BIRDIE_HOME: home, USER: 'tester' },
    cwd: work,
    stderr: { write: (text: string) => warnings.push(text) },
  };
  const host: McpHost = await openMcpHost(io, flags);
  cleanups.push(() => host.close());
  const { server, session } = await createMcpServer(host, {
    userId: host.userId,
    info: { name: 'birdie', version: '0.0.0' },
  });
  const client = new Client({ name: 'embedder', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const asked: string[] = [];
  const forms: unknown[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    if (request.params.mode !== 'url') forms.push(request.params.requestedSchema);
    return answers.shift() ?? { action: 'accept', content: {} };
  });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  cleanups.push(() => client.close());
  return { host, client, asked, forms, session, warnings, home };
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

describe('createMcpServer', { timeout: 60_000 }, () => {
  it('applies the approval rules: deny refuses without asking, ask asks, and each call is a run of one session', async () => {
    const { client, asked, host, session } = await setUp({
      permissions: { deny: ['lower'], ask: ['upper'] },
    });
    const denied = await client.callTool({ name: 'lower', arguments: { word: 'NO' } });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('Refused by the deny rule `lower`');
    expect(asked).toEqual([]);
    const upper = await client.callTool({ name: 'upper', arguments: { word: 'yes' } });
    expect(textOf(upper)).toBe('YES\n');
    expect(asked).toHaveLength(1);
    const runs = await host.store.runs.list({ userId: host.userId, sessionId: (await session()).id });
    expect(runs.map((r) => [r.status, r.trigger, r.toolCalls.map((c) => c.name)])).toEqual([
      ['ok', 'mcp embedder', ['upper']],
      ['rejected', 'mcp embedder', []],
    ]);
  });

  it('a path rule matches the real path: a symlink in the folder does not walk around a deny rule', async () => {
    const { client, home } = await setUp({ permissions: { deny: ['lower(word=.github/**)'] } });
    // The session's folder (io.cwd) holds .github and docs/gh, a link to it.
    const work = join(home, '..', 'work');
    await mkdir(join(work, '.github'), { recursive: true });
    await mkdir(join(work, 'docs'), { recursive: true });
    await symlink('../.github', join(work, 'docs', 'gh'));
    const denied = await client.callTool({ name: 'lower', arguments: { word: 'docs/gh/ci.yml' } });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('Refused by the deny rule `lower(word=.github/**)`');
    const other = await client.callTool({ name: 'lower', arguments: { word: 'docs/readme' } });
    expect(textOf(other)).toBe('docs/readme\n');
  });

  it("lists and runs only what the session's policy allows (a skill disabled by the settings is absent)", async () => {
    const { client } = await setUp({ skills: { disable: ['words'] } });
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('upper');
    const refused = await client.callTool({ name: 'upper', arguments: { word: 'x' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('is not available here');
  });

  it('grants --enable / --disable to the session, over the skills on by default', async () => {
    const { client } = await setUp({}, { enable: ['quiet'], disable: ['words'] });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hush']);
    expect(textOf(await client.callTool({ name: 'hush', arguments: {} }))).toBe('shh\n');
  });

  it('checks arguments against the schema before anything runs or is asked', async () => {
    const { client, asked } = await setUp({ approval: 'always' });
    const bad = await client.callTool({ name: 'upper', arguments: { word: 3 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('word');
    expect(asked).toEqual([]);
  });

  it('offers approve once / for this session / reject; "for this session" stops asking for that tool only', async () => {
    const session = (decision: string): ElicitResult => ({ action: 'accept', content: { decision } });
    const { client, asked, forms } = await setUp({ approval: 'always' }, {}, [
      session('once'),
      session('session'),
      session('reject'),
    ]);
    expect(textOf(await client.callTool({ name: 'upper', arguments: { word: 'one' } }))).toBe('ONE\n');
    expect(forms[0]).toMatchObject({
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          oneOf: [
            { const: 'once', title: 'Approve once' },
            { const: 'session', title: 'Approve for this session' },
            { const: 'reject', title: 'Reject' },
          ],
        },
      },
    });
    // Approved once: the next call asks again; approved for the session, the calls after it do not.
    expect(textOf(await client.callTool({ name: 'upper', arguments: { word: 'two' } }))).toBe('TWO\n');
    expect(asked).toHaveLength(2);
    expect(textOf(await client.callTool({ name: 'upper', arguments: { word: 'three' } }))).toBe('THREE\n');
    expect(textOf(await client.callTool({ name: 'upper', arguments: { word: 'four' } }))).toBe('FOUR\n');
    expect(asked).toHaveLength(2);
    // Another tool still asks, and "reject" refuses it.
    const rejected = await client.callTool({ name: 'lower', arguments: { word: 'NO' } });
    expect(asked).toHaveLength(3);
    expect(rejected.isError).toBe(true);
    expect(textOf(rejected)).toContain('did not approve');
  });

  it("runs a skill's builtin: tools on the session user's memory and tasks, each call a run of the session", async () => {
    const { client, host, home, session } = await setUp({ approval: 'never' });
    await mkdir(join(home, 'skills', 'notes'), { recursive: true });
    await writeFile(
      join(home, 'skills', 'notes', 'SKILL.md'),
      '---\nname: notes\ndescription: Notes.\n---\n\n## Tools\n\n### remember\ndescription: Keep a fact.\nentrypoint: builtin:remember\n\n### schedule_task\ndescription: Schedule.\nentrypoint: builtin:schedule_task\n',
    );
    await host.registry.reload();
    const remembered = await client.callTool({ name: 'remember', arguments: { content: 'Uses tabs' } });
    expect(remembered.isError).toBeFalsy();
    expect(textOf(remembered)).toBe('Remembered [1]: Uses tabs');
    expect((await host.store.memory.list(host.userId)).map((m) => m.content)).toEqual(['Uses tabs']);
    const scheduled = await client.callTool({
      name: 'schedule_task',
      arguments: { prompt: 'tidy', every: '2h' },
    });
    expect(textOf(scheduled)).toContain('Scheduled task [1]: every 2h');
    const runs = await host.store.runs.list({ userId: host.userId, sessionId: (await session()).id });
    const [task] = await host.store.tasks.list(host.userId);
    // The task remembers the call's run as the one that scheduled it, as a turn's does.
    expect(task).toMatchObject({ prompt: 'tidy', createdByRun: runs[0]?.id });
    expect(runs.map((r) => [r.status, r.toolCalls.map((c) => c.name)])).toEqual([
      ['ok', ['schedule_task']],
      ['ok', ['remember']],
    ]);
  });

  it('a tool approved for the session asks again on another connection, and after its file changes', async () => {
    const { client, asked, host, home } = await setUp({ approval: 'always' }, {}, [
      { action: 'accept', content: { decision: 'session' } },
    ]);
    await client.callTool({ name: 'upper', arguments: { word: 'a' } });
    await client.callTool({ name: 'upper', arguments: { word: 'b' } });
    expect(asked).toHaveLength(1);
    // The approval is bound to the file that declared the tool: once it changes, the tool asks again.
    await writeFile(
      join(home, 'skills', 'words', 'SKILL.md'),
      SKILL.replace('Word tools.', 'Word tools, changed.'),
    );
    await host.registry.reload();
    await client.callTool({ name: 'upper', arguments: { word: 'c' } });
    expect(asked).toHaveLength(2);
    // A second MCP connection is a second session: nothing approved there.
    const { server } = await createMcpServer(host, {
      userId: host.userId,
      info: { name: 'birdie', version: '0' },
    });
    const other = new Client({ name: 'second', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const otherAsked: string[] = [];
    other.setRequestHandler(ElicitRequestSchema, async (request) => {
      otherAsked.push(request.params.message);
      return { action: 'decline' };
    });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await other.connect(clientSide);
    cleanups.push(() => other.close());
    const refused = await other.callTool({ name: 'upper', arguments: { word: 'c' } });
    expect(otherAsked).toHaveLength(1);
    expect(refused.isError).toBe(true);
  });
});

const growing = fileURLToPath(new URL('./fixtures/growing-server.mjs', import.meta.url));

/** Resolves once `condition()` holds (checked every 50 ms), or fails after `ms`. */
async function until(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('tools/list_changed', { timeout: 90_000 }, () => {
  it('is sent when a skill folder changes what the session may list, and the next list has the change', async () => {
    const { client, home } = await setUp({});
    let announced = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      announced += 1;
    });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['lower', 'upper']);
    await mkdir(join(home, 'skills', 'more'), { recursive: true });
    await writeFile(
      join(home, 'skills', 'more', 'SKILL.md'),
      "---\nname: more\ndescription: One more.\n---\n\n## Tools\n\n### again\ndescription: Says again.\nentrypoint: bash:printf 'again\\n'\nschema: { type: object, properties: {} }\n",
    );
    await until(() => announced === 1, 'the first list_changed');
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['again', 'lower', 'upper']);
  });

  it("is sent when an MCP server of the session's skills says its tools changed", async () => {
    const { client, home } = await setUp({});
    let announced = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      announced += 1;
    });
    await client.listTools();
    await mkdir(join(home, 'skills', 'growing'), { recursive: true });
    await writeFile(
      join(home, 'skills', 'growing', 'SKILL.md'),
      `---\nname: growing\ndescription: A server whose tools change.\nmcp_server:\n  transport: stdio\n  command: ${process.execPath}\n  args: ${JSON.stringify([growing])}\n---\n`,
    );
    await until(() => announced === 1, 'list_changed for the new skill');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('grow');
    expect(textOf(await client.callTool({ name: 'grow', arguments: {} }))).toBe('added grown1');
    await until(() => announced === 2, "list_changed for the server's change");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['grow', 'grown1', 'upper']));
    expect(textOf(await client.callTool({ name: 'grown1', arguments: {} }))).toBe('grown1 ran');
  });
});

// better-sqlite3 as the store loads it: to expire a lease the way a paused process lets it expire.
const Database = createRequire(fileURLToPath(import.meta.resolve('@birdie/store')))('better-sqlite3') as new (
  file: string,
) => { prepare(sql: string): { run(...params: unknown[]): unknown }; close(): void };

describe('a call whose lease another process took over before its run ended', { timeout: 60_000 }, () => {
  it('still returns the tool result, with a note that its run log was not ended', async () => {
    const { client, host, session, home } = await setUp({});
    const sessionId = (await session()).id;
    const other = openStore({ home });
    cleanups.push(() => other.close());
    // Just before the call's run is ended, this process "pauses" past its lease and another one takes over.
    const finish = host.store.runs.finish.bind(host.store.runs);
    host.store.runs.finish = async (runId, r) => {
      const db = new Database(join(home, 'birdie.db'));
      db.prepare('UPDATE leases SET expires_at = 0 WHERE session_id = ?').run(sessionId);
      db.close();
      await other.leases.acquire(sessionId);
      return finish(runId, r);
    };
    const upper = await client.callTool({ name: 'upper', arguments: { word: 'late' } });
    expect(upper.isError).toBeFalsy();
    expect(textOf(upper)).toContain('LATE\n');
    expect(textOf(upper)).toContain(`the lease on session ${sessionId} was taken over by process`);
    const [run] = await other.runs.list({ userId: host.userId, sessionId });
    expect(run).toMatchObject({
      status: 'died',
      error: expect.stringContaining('stopped holding the session'),
    });
  });
});
