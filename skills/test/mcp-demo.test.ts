import type { McpStdioServer } from '@birdie/skill-parser';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundledSkill } from './helpers.js';

let server: McpStdioServer;

/** What the runtime does with `command: node`: start the server with the Node that is running birdie. */
const commandOf = (config: McpStdioServer) => (config.command === 'node' ? process.execPath : config.command);

/** LangChain tool output: a string, or content blocks of which we want the text. */
function text(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((block) => (block as { text?: string }).text ?? '').join('');
  throw new Error(`unexpected tool output ${JSON.stringify(output)}`);
}

beforeAll(async () => {
  const skill = await loadBundledSkill('mcp-demo');
  if (skill.mcpServer?.transport !== 'stdio') throw new Error('mcp-demo must declare a stdio server');
  server = skill.mcpServer;
});

describe('mcp-demo through the MCP SDK client', () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: 'birdie-skills-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: commandOf(server), args: server.args, stderr: 'ignore' }),
    );
  });

  afterAll(async () => {
    await client.close();
  });

  it('identifies itself and lists exactly echo and reverse_string with their schemas', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'birdie-mcp-demo', version: '1.0.0' });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['echo', 'reverse_string']);
    const echo = tools.find((tool) => tool.name === 'echo');
    expect(echo?.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
  });

  it('reports invalid arguments as a tool error, not a crash', async () => {
    const result = await client.callTool({ name: 'reverse_string', arguments: { text: 42 } });
    expect(result.isError).toBe(true);
    const again = await client.callTool({ name: 'echo', arguments: { message: 'still alive' } });
    expect(again.content).toEqual([{ type: 'text', text: 'still alive' }]);
  });
});

describe('mcp-demo through LangChain MultiServerMCPClient (what birdie uses)', () => {
  let client: MultiServerMCPClient;

  beforeAll(() => {
    client = new MultiServerMCPClient({
      mcpServers: {
        'mcp-demo': { transport: 'stdio', command: commandOf(server), args: server.args, stderr: 'ignore' },
      },
      throwOnLoadError: true,
      prefixToolNameWithServerName: false,
    });
  });

  afterAll(async () => {
    await client.close();
  });

  it('echoes any text unchanged', async () => {
    const tools = await client.getTools();
    const echo = tools.find((tool) => tool.name === 'echo');
    const message = `quotes "' backslash \\ $(rm -rf ~) \`id\` newline\nunicode 👋🏽 é 日本語`;
    expect(text(await echo?.invoke({ message }))).toBe(message);
  });

  it('reverses by user-perceived characters', async () => {
    const tools = await client.getTools();
    const reverse = tools.find((tool) => tool.name === 'reverse_string');
    expect(text(await reverse?.invoke({ text: 'birdie' }))).toBe('eidrib');
    expect(text(await reverse?.invoke({ text: 'ae\u0301👋🏽🇦🇹' }))).toBe('🇦🇹👋🏽e\u0301a');
    expect(text(await reverse?.invoke({ text: '' }))).toBe('');
  });
});
