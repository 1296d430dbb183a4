import { fileURLToPath } from 'node:url';
import { startHttpMcpServer } from '@birdie/test-utils';
import { AIMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { agentSetup, callTools, collect, ofType, toolMessages, useCleanups } from './helpers.js';

const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

const cleanups = useCleanups();
const setup = agentSetup(cleanups);

describe('a remote MCP server that goes away', { timeout: 90_000 }, () => {
  it("a call says the server's address and why it cannot be reached, and the next turn connects again", async () => {
    const server = await startHttpMcpServer(everything);
    cleanups.push(() => server.stop());
    const { url, port } = server;
    const skill = `---\nname: remote\ndescription: MCP server remote\nenabled_by_default: true\nmcp_server:\n  transport: streamable_http\n  url: ${url}\n---\n`;
    // No wait before a failed server is tried again (30 s by default): the test restarts it at once.
    const { agent, model } = await setup({ 'remote/SKILL.md': skill }, {}, { mcp: { retryAfterMs: 0 } });
    model.respond(callTools([{ name: 'echo', args: { message: 'one' } }])).respond(new AIMessage('ok'));
    await collect(agent.stream('first', { threadId: 't1' }));

    await server.stop();
    model.respond(callTools([{ name: 'echo', args: { message: 'two' } }])).respond(new AIMessage('ok'));
    const second = await collect(agent.stream('second', { threadId: 't1' }));
    expect(ofType(second, 'tool-end')[0]).toMatchObject({ name: 'echo', ok: false });
    const failed = (await toolMessages(agent, 't1')).at(-1);
    expect(String(failed?.content)).toContain(
      `MCP server "remote" cannot be reached at ${url} (connection refused, ECONNREFUSED)`,
    );

    // Back on the same address: the next turn starts a new connection instead of reusing the dead one.
    const again = await startHttpMcpServer(everything, { port });
    cleanups.push(() => again.stop());
    model.respond(callTools([{ name: 'echo', args: { message: 'three' } }])).respond(new AIMessage('ok'));
    const third = await collect(agent.stream('third', { threadId: 't1' }));
    expect(ofType(third, 'tool-end')[0]).toMatchObject({ name: 'echo', ok: true });
    expect(String((await toolMessages(agent, 't1')).at(-1)?.content)).toContain('three');
  });
});
