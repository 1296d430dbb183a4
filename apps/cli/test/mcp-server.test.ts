import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHttpMcpServer } from '@birdie/test-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie, startBirdie } from './helpers/birdie-process.js';
import { BIN, type Sandbox, sandbox } from './helpers/env.js';
import { makeToken, startMcpHttp } from './helpers/serve.js';

// Issue 33, the server half: `birdie mcp` driven by the MCP SDK's own client, over stdio (the built CLI spawned by
// the client) and over streamable HTTP (`--http 0`, the tokens of `birdie serve`).

let box: Sandbox;
let skills: string;
let agents: string;

/** A `bash:` tool that needs approval, a knowledge skill with a reference file, and an agent. */
async function writeFixtures(root: string): Promise<void> {
  skills = join(root, 'mcp-skills');
  agents = join(root, 'mcp-agents');
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
      'approval: required',
      'schema:',
      '  type: object',
      '  properties:',
      '    word:',
      '      type: string',
      '  required: [word]',
      '',
      '### here',
      'description: Print the working folder.',
      'entrypoint: bash:pwd',
      'schema: { type: object, properties: {} }',
      '',
    ].join('\n'),
  );
  await mkdir(join(skills, 'house-style', 'reference'), { recursive: true });
  await writeFile(
    join(skills, 'house-style', 'SKILL.md'),
    '---\nname: house-style\ndescription: How we write.\n---\n\n# House style\n\nShort sentences.\n',
  );
  await writeFile(join(skills, 'house-style', 'reference', 'words.md'), 'Say "use", not "utilise".\n');
  await mkdir(agents, { recursive: true });
  await writeFile(
    join(agents, 'editor.md'),
    '---\nname: editor\ndescription: Edits prose.\n---\n\nYou edit prose for clarity.\n',
  );
}

beforeAll(async () => {
  box = await sandbox();
  await writeFixtures(box.dir.path);
});

afterAll(async () => {
  await box?.cleanup();
});

/** An SDK client; with `answer`, it declares form elicitation and answers every question so, recording them. */
function client(answer?: ElicitResult['action']): { client: Client; asked: string[] } {
  const asked: string[] = [];
  const c = new Client(
    { name: 'sdk-test', version: '1.0.0' },
    { capabilities: answer ? { elicitation: { form: {} } } : {} },
  );
  if (answer)
    c.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return answer === 'accept' ? { action: 'accept', content: {} } : { action: answer };
    });
  return { client: c, asked };
}

async function overStdio(c: Client, extra: string[] = []): Promise<void> {
  await c.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--skills-dir', skills, '--agents-dir', agents, ...extra],
      env: box.env as Record<string, string>,
      cwd: box.cwd,
      stderr: 'pipe',
    }),
  );
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');

describe('birdie mcp over stdio', { timeout: 120_000 }, () => {
  it('lists the tools with their schemas, knowledge skills as resources, agents as prompts', async () => {
    const { client: c } = client();
    await overStdio(c);
    try {
      const { tools } = await c.listTools();
      const shout = tools.find((t) => t.name === 'shout');
      expect(shout?.description).toBe('Print the word in capitals.');
      expect(shout?.inputSchema).toMatchObject({
        type: 'object',
        properties: { word: { type: 'string' } },
        required: ['word'],
      });
      const { resources } = await c.listResources();
      expect(resources.map((r) => r.uri)).toEqual(
        expect.arrayContaining(['skill://house-style', 'skill://house-style/reference/words.md']),
      );
      const { prompts } = await c.listPrompts();
      expect(prompts.map((p) => p.name)).toContain('editor');
      const prompt = await c.getPrompt({ name: 'editor', arguments: { request: 'Tighten this.' } });
      expect(JSON.stringify(prompt.messages)).toContain('You edit prose for clarity.\\n\\nTighten this.');
    } finally {
      await c.close();
    }
  });

  it('reads a knowledge skill and its reference file as resources', async () => {
    const { client: c } = client();
    await overStdio(c);
    try {
      const body = await c.readResource({ uri: 'skill://house-style' });
      expect(body.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
      expect((body.contents[0] as { text: string }).text).toContain('Short sentences.');
      const file = await c.readResource({ uri: 'skill://house-style/reference/words.md' });
      expect((file.contents[0] as { text: string }).text).toBe('Say "use", not "utilise".\n');
      await expect(c.readResource({ uri: 'skill://house-style/../shout/SKILL.md' })).rejects.toThrow(
        /not a reference file/,
      );
    } finally {
      await c.close();
    }
  });

  it('asks before a bash: tool that needs approval: accepted, it runs (its argument data, not shell)', async () => {
    const { client: c, asked } = client('accept');
    await overStdio(c);
    try {
      const result = await c.callTool({ name: 'shout', arguments: { word: 'hi $(id)' } });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe('HI $(ID)\n');
      expect(textOf(await c.callTool({ name: 'here', arguments: {} }))).toBe(`${box.cwd}\n`);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('shout');
      expect(asked[0]).toContain('hi $(id)');
    } finally {
      await c.close();
    }
  });

  it('declined, the call does not run and the client is told; both calls are in the run log', async () => {
    const { client: c, asked } = client('decline');
    await overStdio(c);
    try {
      const result = await c.callTool({ name: 'shout', arguments: { word: 'no' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('did not approve');
      expect(asked).toHaveLength(1);
    } finally {
      await c.close();
    }
    const logs = await birdie(['logs', '--json'], { env: box.env, cwd: box.cwd });
    expect(logs.code, logs.stderr).toBe(0);
    const runs = logs.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { status: string; trigger?: string; toolCalls: unknown[] });
    const mine = runs.filter((r) => r.trigger === 'mcp sdk-test');
    expect(mine.map((r) => r.status)).toEqual(expect.arrayContaining(['ok', 'rejected']));
    // The accepted call ran (its journal row says so); the declined one is a rejected run that ran nothing.
    expect(mine.flatMap((r) => r.toolCalls)).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'shout', status: 'ok' })]),
    );
    expect(mine.filter((r) => r.status === 'rejected').flatMap((r) => r.toolCalls)).toEqual([]);
  });

  it("suggests for a mistyped tool only the names the session's tools/list shows, never a disabled skill's", async () => {
    // One tool the session lists (greet) beside the disabled skill's (shout, here).
    const more = join(box.dir.path, 'typo-skills');
    await mkdir(join(more, 'greet'), { recursive: true });
    await writeFile(
      join(more, 'greet', 'SKILL.md'),
      '---\nname: greet\ndescription: Greets.\n---\n\n## Tools\n\n### greet\ndescription: Say hello.\nentrypoint: bash:echo hello\nschema: { type: object, properties: {} }\n',
    );
    const { client: c } = client();
    await overStdio(c, ['--skills-dir', more, '--disable', 'shout']);
    try {
      const names = (await c.listTools()).tools.map((t) => t.name);
      expect(names).toContain('greet');
      expect(names).not.toContain('shout');
      // A typo of the hidden tool: the error offers no name the session cannot see (nor anything of its skill).
      const error = await c.callTool({ name: 'shuot', arguments: {} }).then(
        () => undefined,
        (e: unknown) => e as { code: number; message: string },
      );
      expect(error).toMatchObject({ code: -32602, message: expect.stringContaining('unknown tool "shuot"') });
      expect(error?.message).not.toContain('shout');
      // A typo of a tool the session lists is still offered.
      await expect(c.callTool({ name: 'gret', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Did you mean "greet"?'),
      });
    } finally {
      await c.close();
    }
  });

  it('refuses a tool that needs approval when the client cannot elicit', async () => {
    const { client: c } = client();
    await overStdio(c);
    try {
      const result = await c.callTool({ name: 'shout', arguments: { word: 'hi' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('cannot be asked (it does not support elicitation)');
    } finally {
      await c.close();
    }
  });
});

describe('birdie mcp --http', { timeout: 180_000 }, () => {
  let url: string;
  let stop: () => void;

  beforeAll(async () => {
    ({ url, stop } = await startMcpHttp(['--skills-dir', skills, '--agents-dir', agents], {
      env: box.env,
      cwd: box.cwd,
    }));
  }, 120_000);

  afterAll(() => stop?.());

  const initialize = (token?: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });

  it('refuses a missing or wrong bearer token with 401, as birdie serve does', async () => {
    for (const token of [undefined, 'birdie_not-a-token']) {
      const response = await initialize(token);
      expect(response.status, String(token)).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
  });

  it('a token holder lists and calls tools, approving through elicitation; another user cannot use the session', async () => {
    const token = await makeToken('alice', { env: box.env, cwd: box.cwd });
    const { client: c, asked } = client('accept');
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await c.connect(transport);
    try {
      /** A raw `tools/list` on this MCP session with another bearer token. */
      const listWith = (other: string, id: number) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${other}`,
            'mcp-session-id': transport.sessionId!,
            'mcp-protocol-version': '2025-06-18',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: {} }),
        });
      expect((await c.listTools()).tools.map((t) => t.name)).toContain('shout');
      const result = await c.callTool({ name: 'shout', arguments: { word: 'team' } });
      expect(textOf(result)).toBe('TEAM\n');
      expect(asked).toHaveLength(1);
      // Alice's tools work in her workspace, as under `birdie serve`.
      const here = await c.callTool({ name: 'here', arguments: {} });
      expect(textOf(here)).toBe(`${join(box.home, 'workspaces', 'alice')}\n`);
      // Bob's token with Alice's MCP session id: not his to use.
      const bob = await makeToken('bob', { env: box.env, cwd: box.cwd });
      const response = await listWith(bob, 9);
      expect(response.status).toBe(404);
      // The session is the user's, not the one token's: another token of Alice's uses it (as her sessions in
      // `birdie serve`), so a token rotated mid-session does not cut her client off.
      const again = await makeToken('alice', { env: box.env, cwd: box.cwd });
      const listed = await listWith(again, 10);
      expect(listed.status).toBe(200);
      expect(await listed.text()).toContain('"shout"');
    } finally {
      await c.close();
    }
  });
});

const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

describe('birdie mcp passes on the tools of mcp_server skills', { timeout: 120_000 }, () => {
  let passSkills: string;

  beforeAll(async () => {
    passSkills = join(box.dir.path, 'pass-skills');
    await mkdir(join(passSkills, 'everything'), { recursive: true });
    await writeFile(
      join(passSkills, 'everything', 'SKILL.md'),
      `---\nname: everything\ndescription: The MCP reference server\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: ${process.execPath}\n  args: ${JSON.stringify([everything])}\n---\n`,
    );
    // A skill tool named as one of the server's: the server's is then prefixed, as the agent sees it.
    await mkdir(join(passSkills, 'own-echo'), { recursive: true });
    await writeFile(
      join(passSkills, 'own-echo', 'SKILL.md'),
      "---\nname: own-echo\ndescription: Our echo.\n---\n\n## Tools\n\n### echo\ndescription: Our own echo.\nentrypoint: bash:printf 'own %s' {message}\nschema: { type: object, properties: { message: { type: string } }, required: [message] }\n",
    );
  });

  it("lists the server's tools named as the agent sees them, and calls them through the approval path", async () => {
    const { client: c, asked } = client('accept');
    await overStdio(c, ['--skills-dir', passSkills, '--approval', 'always']);
    try {
      const { tools } = await c.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['echo', 'everything__echo', 'get-sum']));
      expect(tools.find((t) => t.name === 'get-sum')?.inputSchema).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
      });
      const sum = await c.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
      expect(textOf(sum)).toContain('5');
      const echoed = await c.callTool({ name: 'everything__echo', arguments: { message: 'hi' } });
      expect(textOf(echoed)).toContain('Echo: hi');
      expect(textOf(await c.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('own hi');
      // `--approval always`: every call asked, the server's tools as the skill's own.
      expect(asked).toHaveLength(3);
      expect(asked[0]).toContain('get-sum');
    } finally {
      await c.close();
    }
  });

  it('leaves out the tools of a server whose skill is disabled, and refuses a call of one', async () => {
    const { client: c } = client('accept');
    await overStdio(c, ['--skills-dir', passSkills, '--disable', 'everything']);
    try {
      const names = (await c.listTools()).tools.map((t) => t.name);
      expect(names).toContain('echo');
      expect(names).not.toContain('get-sum');
      // No tool of this session has the name: the JSON-RPC error for an unknown tool (-32602), not a tool's result.
      await expect(c.callTool({ name: 'get-sum', arguments: { a: 1, b: 1 } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('unknown tool "get-sum"'),
      });
    } finally {
      await c.close();
    }
  });

  it("over --http one server serves every user, so it is told no user's folder as its root", async () => {
    // A remote server (a local process is not run for strangers without the sandbox): the reference server over
    // streamable HTTP, in a skills folder of its own.
    const remote = await startHttpMcpServer(everything);
    const remoteSkills = join(box.dir.path, 'remote-skills');
    await mkdir(join(remoteSkills, 'everything'), { recursive: true });
    await writeFile(
      join(remoteSkills, 'everything', 'SKILL.md'),
      `---\nname: everything\ndescription: The MCP reference server\nenabled_by_default: true\nmcp_server:\n  transport: streamable_http\n  url: ${remote.url}\n---\n`,
    );
    // The operator names a skill with an MCP server for it to be shared by every user (`serve.skills`).
    const config = join(box.dir.path, 'remote-config.json');
    await writeFile(config, JSON.stringify({ settings: { serve: { skills: ['everything'] } } }));
    const server = startBirdie(['mcp', '--http', '0', '--skills-dir', remoteSkills, '--config', config], {
      env: box.env,
      cwd: box.cwd,
      timeoutMs: 300_000,
    });
    try {
      const [, url] = (await server.waitFor(
        'stdout',
        /listening on (http:\/\/\S+)/,
        60_000,
      )) as RegExpMatchArray;
      const rootsSeenBy = async (user: string) => {
        const token = await makeToken(user, { env: box.env, cwd: box.cwd });
        const { client: c } = client('accept');
        await c.connect(
          new StreamableHTTPClientTransport(new URL(url!), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        try {
          const roots = await c.callTool({ name: 'get-roots-list', arguments: {} });
          expect(roots.isError, textOf(roots)).toBeFalsy();
          return textOf(roots);
        } finally {
          await c.close();
        }
      };
      // Alice first, then Bob on the same server process: neither is told a workspace, least of all the other's.
      for (const user of ['alice', 'bob']) {
        const seen = await rootsSeenBy(user);
        expect(seen).not.toContain(join(box.home, 'workspaces'));
        expect(seen).not.toContain('file://');
      }
    } finally {
      server.kill('SIGTERM');
      await remote.stop();
    }
  });

  it('refuses a call of a server tool the client declines', async () => {
    const { client: c, asked } = client('decline');
    await overStdio(c, ['--skills-dir', passSkills, '--approval', 'always']);
    try {
      const refused = await c.callTool({ name: 'get-sum', arguments: { a: 1, b: 1 } });
      expect(asked).toHaveLength(1);
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('did not approve');
    } finally {
      await c.close();
    }
  });
});
