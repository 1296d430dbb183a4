import { fileURLToPath } from 'node:url';
import { startHttpMcpServer } from '@birdie/test-utils';
import { AIMessage } from '@langchain/core/messages';
import { beforeAll, describe, expect, it } from 'vitest';
import { isAgentError, type McpNotice, promptMessagesText } from '../src/index.js';
import { agentSetup, callTools, collect, textOf, useCleanups, waitFor } from './helpers.js';

const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

const cleanups = useCleanups();
const setup = agentSetup(cleanups);

interface Reach {
  name: string;
  url?: string;
}
const reach = { stdio: { name: 'stdio' } as Reach, http: { name: 'streamable HTTP' } as Reach };

function everythingSkill(how: Reach): string {
  const server = how.url
    ? `  transport: streamable_http\n  url: ${how.url}\n`
    : `  transport: stdio\n  command: node\n  args: ${JSON.stringify([everything])}\n`;
  return `---\nname: everything\ndescription: MCP server everything\nenabled_by_default: true\nmcp_server:\n${server}---\n`;
}

beforeAll(async () => {
  const server = await startHttpMcpServer(everything);
  reach.http.url = server.url;
  return () => server.stop();
}, 60_000);

describe.each([reach.stdio, reach.http])(
  "a session's MCP prompts and resources against server-everything ($name)",
  { timeout: 90_000 },
  (how) => {
    it('lists the prompts with their arguments, and fills them in through prompts/get', async () => {
      const { agent } = await setup({ 'everything/SKILL.md': everythingSkill(how) });
      const mcp = await agent.mcpSession('t1');
      expect(mcp.servers).toEqual([
        { server: 'everything', prompts: true, resources: true, subscribe: true, completions: true },
      ]);
      const prompts = await mcp.prompts();
      expect(prompts.map((p) => p.name).sort()).toEqual([
        'args-prompt',
        'completable-prompt',
        'resource-prompt',
        'simple-prompt',
      ]);
      expect(prompts.find((p) => p.name === 'args-prompt')?.arguments).toEqual([
        { name: 'city', description: 'Name of the city', required: true },
        { name: 'state', required: false },
      ]);
      expect(await mcp.promptText('everything', 'simple-prompt', {})).toBe(
        'This is a simple prompt without arguments.',
      );
      expect(await mcp.promptText('everything', 'args-prompt', { city: 'Paris', state: 'TX' })).toBe(
        "What's weather in Paris, TX?",
      );
      // An embedded resource goes with its uri, type and text.
      const withResource = await mcp.promptText('everything', 'resource-prompt', {
        resourceType: 'Text',
        resourceId: '2',
      });
      expect(withResource).toContain('Please analyze the following resource:');
      expect(withResource).toContain('[resource <demo://resource/dynamic/text/2> text/plain]');
      expect(withResource).toContain('Resource 2: This is a plaintext resource');
      // A binary one is named, not pasted.
      const blob = await mcp.promptText('everything', 'resource-prompt', {
        resourceType: 'Blob',
        resourceId: '1',
      });
      expect(blob).toContain('demo://resource/dynamic/blob/1');
    });

    it('completes prompt arguments through completion/complete, with the arguments already given', async () => {
      const { agent } = await setup({ 'everything/SKILL.md': everythingSkill(how) });
      const mcp = await agent.mcpSession('t1');
      expect(
        await mcp.completeArgument('everything', 'completable-prompt', { name: 'department', value: 'S' }),
      ).toEqual(['Sales', 'Support']);
      expect(
        await mcp.completeArgument(
          'everything',
          'completable-prompt',
          { name: 'name', value: '' },
          { department: 'Sales' },
        ),
      ).toEqual(['David', 'Eve', 'Frank']);
    });

    it('lists resource URIs and attaches one; an unknown server is refused', async () => {
      const { agent } = await setup({ 'everything/SKILL.md': everythingSkill(how) });
      const mcp = await agent.mcpSession('t1');
      const uris = await mcp.resourceUris('everything', 5);
      expect(uris.length).toBeGreaterThan(0);
      expect(uris.length).toBeLessThanOrEqual(5);
      expect(uris).toContain('demo://resource/static/document/architecture.md');
      const attached = await mcp.attachResource(
        'everything',
        'demo://resource/static/document/architecture.md',
      );
      expect(attached.text).toMatch(
        /^<mcp-resource server="everything" uri="demo:\/\/resource\/static\/document\/architecture.md">\n\[resource <demo:\/\/resource\/static\/document\/architecture.md> text\/markdown\]\n/,
      );
      expect(attached.subscribed).toBe(true);
      expect(attached.note).toContain('following its changes');
      expect(mcp.has('everything')).toBe(true);
      expect(mcp.has('nope')).toBe(false);
      await expect(mcp.resourceUris('nope')).rejects.toSatisfy((e) => isAgentError(e, 'mcp-unavailable'));
      await mcp.close();
    });

    it('a subscribed resource that changes reaches the next model call with its fresh content', async () => {
      const notices: McpNotice[] = [];
      const { agent, model } = await setup(
        { 'everything/SKILL.md': everythingSkill(how) },
        {},
        { mcp: { onNotice: (n) => notices.push(n) } },
      );
      const uri = 'demo://resource/dynamic/text/3';
      const mcp = await agent.mcpSession('t1');
      await mcp.attachResource('everything', uri);
      // server-everything sends updates for subscribed resources once a client turns them on with this tool.
      model
        .respond(callTools([{ name: 'toggle-subscriber-updates', args: {} }]))
        .respond(new AIMessage('updates on'))
        .respond(new AIMessage('seen'));
      await collect(agent.stream('turn updates on', { threadId: 't1' }));
      // The tool makes the server send one update at once: the model call after the tool result has it.
      const updates = (messages: readonly { content: unknown }[]) =>
        messages
          .map(textOf)
          .filter((t) => t.includes(`<mcp-resource server="everything" uri="${uri}" updated="true">`));
      const afterTool = model.calls.at(-1)?.messages ?? [];
      expect(updates(afterTool)).toHaveLength(1);
      expect(updates(afterTool)[0]).toContain('Resource 3: This is a plaintext resource');
      expect(textOf(afterTool.at(-1))).toContain('updated="true"');
      // Then every 5 s: one that comes between turns reaches the next turn's model call.
      await waitFor(() => notices.find((n) => n.kind === 'resource-updated' && n.uri === uri), 30_000);
      await collect(agent.stream('what changed?', { threadId: 't1' }));
      const sent = model.calls.at(-1)?.messages ?? [];
      expect(updates(sent)).toHaveLength(2);
      expect(textOf(sent.at(-2))).toBe('what changed?');
      expect(textOf(sent.at(-1))).toContain('updated="true"');
      // The session's end unsubscribes (server-everything logs each unsubscribe request).
      await mcp.close();
      await waitFor(() =>
        notices.find(
          (n) => n.kind === 'log' && String(n.data).includes(`Received Unsubscribe Resource request: ${uri}`),
        ),
      );
    });
  },
);

describe('a resource the model reads', { timeout: 90_000 }, () => {
  it('mcp_read_resource subscribes the session: the next model call after an update has the fresh content', async () => {
    const { agent, model } = await setup({ 'everything/SKILL.md': everythingSkill(reach.stdio) });
    const uri = 'demo://resource/dynamic/text/5';
    model
      .respond(callTools([{ name: 'mcp_read_resource', args: { server: 'everything', uri } }]))
      .respond(callTools([{ name: 'toggle-subscriber-updates', args: {} }]))
      .respond(new AIMessage('done'));
    await collect(agent.stream('read it, then turn updates on', { threadId: 't1' }));
    const sent = model.calls.at(-1)?.messages ?? [];
    expect(textOf(sent.at(-1))).toContain(`<mcp-resource server="everything" uri="${uri}" updated="true">`);
    expect(textOf(sent.at(-1))).toContain('Resource 5: This is a plaintext resource');
    // Another session did not attach it: nothing reaches it.
    model.respond(new AIMessage('other'));
    await collect(agent.stream('hello', { threadId: 't2' }));
    expect((model.calls.at(-1)?.messages ?? []).map(textOf).join('\n')).not.toContain('updated="true"');
  });
});

describe('prompt messages as the user turn', () => {
  it('marks assistant messages, names images, and refuses content it cannot send', () => {
    expect(
      promptMessagesText('s', 'p', {
        messages: [
          { role: 'user', content: { type: 'text', text: 'hi' } },
          { role: 'assistant', content: { type: 'text', text: 'hello' } },
          { role: 'user', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } },
        ],
      }),
    ).toBe('hi\n\n[assistant]\nhello\n\n[image: image/png, 3 bytes]');
    expect(() =>
      promptMessagesText('s', 'p', {
        messages: [{ role: 'user', content: { type: 'video', data: 'x' } as never }],
      }),
    ).toThrow(/s:p returned content of type "video"/);
  });
});
