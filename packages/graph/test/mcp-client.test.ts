import { fileURLToPath } from 'node:url';
import { AIMessage } from '@langchain/core/messages';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { agentSetup, callTools, collect, toolMessages, useCleanups } from './helpers.js';

const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

const cleanups = useCleanups();
const setup = agentSetup(cleanups);

const everythingSkill = `---\nname: everything\ndescription: MCP server everything\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: node\n  args: ${JSON.stringify([everything])}\n---\n`;

/** The reference: the MCP SDK's own client declaring roots, sampling and form elicitation. */
async function referenceToolNames(): Promise<string[]> {
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
    new StdioClientTransport({ command: process.execPath, args: [everything], stderr: 'ignore' }),
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

describe('the MCP client against server-everything (stdio)', { timeout: 90_000 }, () => {
  it('offers the model the 16 tools a client with roots, sampling and form elicitation sees', async () => {
    const reference = await referenceToolNames();
    expect(reference).toHaveLength(16);
    expect(reference).toEqual(
      expect.arrayContaining(['get-roots-list', 'trigger-sampling-request', 'trigger-elicitation-request']),
    );
    const { agent } = await setup({ 'everything/SKILL.md': everythingSkill });
    const offered = (await agent.toolsFor('t1')).filter((t) => t.skill === 'everything').map((t) => t.name);
    expect(offered.sort()).toEqual(reference);
  });

  it('a resource_link reaches the model with its uri, name and description', async () => {
    const { agent, model } = await setup({ 'everything/SKILL.md': everythingSkill });
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
    const { agent, model } = await setup({ 'everything/SKILL.md': everythingSkill });
    model
      .respond(callTools([{ name: 'get-resource-reference', args: { resourceType: 'Text', resourceId: 4 } }]))
      .respond(new AIMessage('ok'));
    await collect(agent.stream('reference', { threadId: 't1' }));
    const [result] = await toolMessages(agent, 't1');
    const text = String(result?.content);
    expect(text).toContain('Returning resource reference for Resource 4:');
    expect(text).toContain('demo://resource/dynamic/text/4');
    expect(text).toContain('Resource 4: This is a plaintext resource');
    expect(text).toContain('You can access this resource using the URI');
  });
});
