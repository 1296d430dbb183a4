import { fileURLToPath, pathToFileURL } from 'node:url';
import { startHttpMcpServer } from '@birdie/test-utils';
import { AIMessage } from '@langchain/core/messages';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { McpNotice, McpSamplingApproval } from '../src/index.js';
import { agentSetup, callTools, collect, toolMessages, useCleanups, waitFor } from './helpers.js';

const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

const cleanups = useCleanups();
const setup = agentSetup(cleanups);

/** How the tests reach server-everything: as a child over stdio, or over streamable HTTP at `url`. */
interface Reach {
  name: string;
  url?: string;
}

const reach = { stdio: { name: 'stdio' } as Reach, http: { name: 'streamable HTTP' } as Reach };

function everythingSkillFor(how: Reach): string {
  const server = how.url
    ? `  transport: streamable_http\n  url: ${how.url}\n`
    : `  transport: stdio\n  command: node\n  args: ${JSON.stringify([everything])}\n`;
  return `---\nname: everything\ndescription: MCP server everything\nenabled_by_default: true\nmcp_server:\n${server}---\n`;
}

/** server-everything over streamable HTTP on a free port, for the whole file; its port is read from its log. */
beforeAll(async () => {
  const server = await startHttpMcpServer(everything);
  reach.http.url = server.url;
  return () => server.stop();
}, 60_000);

/** The reference: the MCP SDK's own client declaring roots, sampling and form elicitation. */
async function referenceToolNames(how: Reach): Promise<string[]> {
  const client = new Client(
    { name: 'reference', version: '1.0.0' },
    { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } } },
  );
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'no' },
    model: 'none',
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
  await client.connect(
    how.url
      ? new StreamableHTTPClientTransport(new URL(how.url))
      : new StdioClientTransport({ command: process.execPath, args: [everything], stderr: 'ignore' }),
  );
  cleanups.push(() => client.close());
  // server-everything registers its capability-dependent tools just after the handshake: wait for them.
  let names: string[] = [];
  for (let attempt = 0; attempt < 100; attempt += 1) {
    names = (await client.listTools()).tools.map((t) => t.name);
    if (names.includes('trigger-sampling-request')) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return names.sort();
}

describe.each([reach.stdio, reach.http])(
  'the MCP client against server-everything ($name)',
  { timeout: 90_000 },
  (how) => {
    it('offers the model the 16 tools a client with roots, sampling and form elicitation sees', async () => {
      const reference = await referenceToolNames(how);
      expect(reference).toHaveLength(16);
      expect(reference).toEqual(
        expect.arrayContaining(['get-roots-list', 'trigger-sampling-request', 'trigger-elicitation-request']),
      );
      const { agent } = await setup({ 'everything/SKILL.md': everythingSkillFor(how) });
      const offered = (await agent.toolsFor('t1')).filter((t) => t.skill === 'everything').map((t) => t.name);
      expect(offered.sort()).toEqual(reference);
    });

    it('a resource_link reaches the model with its uri, name and description', async () => {
      const { agent, model } = await setup({ 'everything/SKILL.md': everythingSkillFor(how) });
      model
        .respond(callTools([{ name: 'get-resource-links', args: { count: 2 } }]))
        .respond(new AIMessage('ok'));
      await collect(agent.stream('links', { threadId: 't1' }));
      const [result] = await toolMessages(agent, 't1');
      const text = String(result?.content);
      expect(text).toContain('Here are 2 resource links');
      expect(text).toContain('demo://resource/dynamic/blob/1');
      expect(text).toContain('Blob Resource 1');
      expect(text).toContain('Resource 1: plaintext resource');
      expect(text).toContain('demo://resource/dynamic/text/2');
      expect(text).toContain('Text Resource 2');
      expect(text).toContain('Resource 2: plaintext resource');
      expect(text).not.toMatch(/\[file: text\/plain\]/);
    });

    it('the text of an embedded resource reaches the model, with its uri', async () => {
      const { agent, model } = await setup({ 'everything/SKILL.md': everythingSkillFor(how) });
      model
        .respond(
          callTools([{ name: 'get-resource-reference', args: { resourceType: 'Text', resourceId: 4 } }]),
        )
        .respond(new AIMessage('ok'));
      await collect(agent.stream('reference', { threadId: 't1' }));
      const [result] = await toolMessages(agent, 't1');
      const text = String(result?.content);
      expect(text).toContain('Returning resource reference for Resource 4:');
      expect(text).toContain('demo://resource/dynamic/text/4');
      expect(text).toContain('Resource 4: This is a plaintext resource');
      expect(text).toContain('You can access this resource using the URI');
    });
  },
);

const changingServer = fileURLToPath(new URL('./fixtures/changing-server.mjs', import.meta.url));

describe.each([reach.stdio, reach.http])(
  'what an MCP server offers besides tools ($name)',
  { timeout: 90_000 },
  (how) => {
    it('mcp_read_resource lists a server’s resources and templates, and reads a resource a link names', async () => {
      const { agent, model } = await setup({ 'everything/SKILL.md': everythingSkillFor(how) });
      const tools = await agent.toolsFor('t1');
      const read = tools.find((t) => t.name === 'mcp_read_resource');
      expect(read).toBeDefined();
      model
        .respond(
          callTools([
            { name: 'mcp_read_resource', args: { server: 'everything' } },
            {
              name: 'mcp_read_resource',
              args: { server: 'everything', uri: 'demo://resource/dynamic/text/3' },
              id: 'c2',
            },
            {
              name: 'mcp_read_resource',
              args: { server: 'everything', uri: 'demo://resource/dynamic/blob/5' },
              id: 'c3',
            },
          ]),
        )
        .respond(new AIMessage('ok'));
      await collect(agent.stream('resources', { threadId: 't1' }));
      const [listed, text, blob] = (await toolMessages(agent, 't1')).map((m) => String(m.content));
      expect(listed).toContain('demo://resource/dynamic/text/{resourceId}');
      expect(listed).toContain('demo://resource/static/document/');
      expect(text).toContain('[resource <demo://resource/dynamic/text/3> text/plain]');
      expect(text).toContain('Resource 3: This is a plaintext resource');
      // A blob of a text type is decoded for the model.
      expect(blob).toContain('Resource 5: This is a base64 blob');
    });

    it('the session’s working folder is the server’s root', async () => {
      const { agent, model, fx } = await setup({ 'everything/SKILL.md': everythingSkillFor(how) });
      model.respond(callTools([{ name: 'get-roots-list', args: {} }])).respond(new AIMessage('ok'));
      await collect(agent.stream('roots', { threadId: 't1' }));
      const [result] = await toolMessages(agent, 't1');
      expect(String(result?.content)).toContain('Current MCP Roots (1 total)');
      expect(String(result?.content)).toContain(pathToFileURL(fx.dir.path).href);
    });

    it('a server’s log messages reach the application at their level', async () => {
      const notices: McpNotice[] = [];
      const { agent, model } = await setup(
        { 'everything/SKILL.md': everythingSkillFor(how) },
        {},
        { mcp: { onNotice: (notice) => notices.push(notice) } },
      );
      model.respond(callTools([{ name: 'toggle-simulated-logging', args: {} }])).respond(new AIMessage('ok'));
      await collect(agent.stream('logs', { threadId: 't1' }));
      const log = await waitFor(
        () => notices.find((n) => n.kind === 'log' && /-level message/.test(String(n.data))),
        30_000,
      );
      expect(log).toMatchObject({ kind: 'log', server: 'everything', level: expect.any(String) });
      expect(String((log as { data: unknown }).data)).toContain(
        `${(log as { level: string }).level.replace(/^./, (c) => c.toUpperCase())}`,
      );
    });
  },
);

describe.each([reach.stdio, reach.http])(
  'a server asks: sampling and elicitation ($name)',
  { timeout: 90_000 },
  (how) => {
    it('sampling: the user approves the request and the answer; the model answers; its tokens are a usage event', async () => {
      const { agent, model } = await setup({ 'everything/SKILL.md': everythingSkillFor(how) });
      model
        .respond(callTools([{ name: 'trigger-sampling-request', args: { prompt: 'a haiku on birds' } }]))
        .respond(
          new AIMessage({
            content: 'wings over water',
            usage_metadata: { input_tokens: 12, output_tokens: 4, total_tokens: 16 },
          }),
        )
        .respond(new AIMessage('ok'));
      const asked: McpSamplingApproval[] = [];
      const events = await collect(
        agent.stream('sample', {
          threadId: 't1',
          mcp: {
            approveSampling: async (ask) => {
              asked.push(ask);
              return true;
            },
          },
        }),
      );
      expect(asked.map((a) => a.answer)).toEqual([undefined, 'wings over water']);
      expect(asked[0]?.server).toBe('everything');
      expect(JSON.stringify(asked[0]?.request.messages)).toContain('a haiku on birds');
      const [result] = await toolMessages(agent, 't1');
      expect(String(result?.content)).toContain('LLM sampling result');
      expect(String(result?.content)).toContain('wings over water');
      // The sampled call's tokens, named with the model (the turn's own calls report none here).
      expect(events.filter((e) => e.type === 'usage')).toEqual([
        { type: 'usage', inputTokens: 12, outputTokens: 4, model: expect.any(String) },
      ]);
    });

    it('sampling is refused when the user declines, and when nobody can be asked', async () => {
      const { agent, model } = await setup({ 'everything/SKILL.md': everythingSkillFor(how) });
      model
        .respond(callTools([{ name: 'trigger-sampling-request', args: { prompt: 'x' } }]))
        .respond(new AIMessage('ok'))
        .respond(callTools([{ name: 'trigger-sampling-request', args: { prompt: 'y' } }]))
        .respond(new AIMessage('ok'));
      await collect(agent.stream('sample', { threadId: 't1', mcp: { approveSampling: async () => false } }));
      await collect(agent.stream('sample again', { threadId: 't1' }));
      const [declined, unattended] = await toolMessages(agent, 't1');
      expect(declined?.status).toBe('error');
      expect(String(declined?.content)).toContain('declined');
      expect(unattended?.status).toBe('error');
      expect(String(unattended?.content)).toContain('does not sample');
    });

    it('elicitation: the front end fills the form; without one the request is declined', async () => {
      const { agent, model } = await setup({ 'everything/SKILL.md': everythingSkillFor(how) });
      model
        .respond(callTools([{ name: 'trigger-elicitation-request', args: {} }]))
        .respond(new AIMessage('ok'))
        .respond(callTools([{ name: 'trigger-elicitation-request', args: {} }]))
        .respond(new AIMessage('ok'));
      const forms: unknown[] = [];
      await collect(
        agent.stream('elicit', {
          threadId: 't1',
          mcp: {
            elicit: async (request, info) => {
              forms.push({ server: info.server, request });
              return { action: 'accept', content: { name: 'Ada Lovelace', check: true } };
            },
          },
        }),
      );
      await collect(agent.stream('elicit again', { threadId: 't1' }));
      expect(forms).toHaveLength(1);
      expect(JSON.stringify(forms[0])).toContain('Your full, legal name');
      const [accepted, declined] = (await toolMessages(agent, 't1')).map((m) => String(m.content));
      expect(accepted).toContain('- Name: Ada Lovelace');
      expect(accepted).toContain('- Agreed to terms: true');
      expect(declined).toContain('User declined to provide the requested information');
    });
  },
);

describe('a server whose tools change', { timeout: 90_000 }, () => {
  it('tools/list_changed: a tool the server adds during a call can be called in the same turn', async () => {
    const { agent, model } = await setup({
      'changing/SKILL.md': `---\nname: changing\ndescription: a changing server\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: node\n  args: ${JSON.stringify([changingServer])}\n---\n`,
    });
    expect((await agent.toolsFor('t1')).map((t) => t.name)).not.toContain('secret');
    model
      .respond(callTools([{ name: 'unlock', args: {} }]))
      .respond(callTools([{ name: 'secret', args: {}, id: 'c2' }]))
      .respond(new AIMessage('ok'));
    await collect(agent.stream('unlock', { threadId: 't1' }));
    const results = await toolMessages(agent, 't1');
    expect(results.map((m) => String(m.content))).toEqual(['unlocked', 'the secret is 42']);
  });
});
