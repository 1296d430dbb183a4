import { type ChildProcess, spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { AIMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { agentSetup, callTools, collect, ofType, toolMessages, useCleanups } from './helpers.js';

const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

const cleanups = useCleanups();
const setup = agentSetup(cleanups);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** server-everything over streamable HTTP on `port`, once it says it listens. */
async function serveEverything(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [everything, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  cleanups.push(() => {
    child.kill('SIGKILL');
  });
  let said = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      said += chunk;
      if (said.includes('listening on port')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`server-everything exited (${code}): ${said}`)));
  });
  return child;
}

describe('a remote MCP server that goes away', { timeout: 90_000 }, () => {
  it("a call says the server's address and why it cannot be reached, and the next turn connects again", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const server = await serveEverything(port);
    const skill = `---\nname: remote\ndescription: MCP server remote\nenabled_by_default: true\nmcp_server:\n  transport: streamable_http\n  url: ${url}\n---\n`;
    // No wait before a failed server is tried again (30 s by default): the test restarts it at once.
    const { agent, model } = await setup({ 'remote/SKILL.md': skill }, {}, { mcp: { retryAfterMs: 0 } });
    model.respond(callTools([{ name: 'echo', args: { message: 'one' } }])).respond(new AIMessage('ok'));
    await collect(agent.stream('first', { threadId: 't1' }));

    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGKILL');
    await exited;
    model.respond(callTools([{ name: 'echo', args: { message: 'two' } }])).respond(new AIMessage('ok'));
    const second = await collect(agent.stream('second', { threadId: 't1' }));
    expect(ofType(second, 'tool-end')[0]).toMatchObject({ name: 'echo', ok: false });
    const failed = (await toolMessages(agent, 't1')).at(-1);
    expect(String(failed?.content)).toContain(
      `MCP server "remote" cannot be reached at ${url} (connection refused, ECONNREFUSED)`,
    );

    // Back on the same address: the next turn starts a new connection instead of reusing the dead one.
    await serveEverything(port);
    model.respond(callTools([{ name: 'echo', args: { message: 'three' } }])).respond(new AIMessage('ok'));
    const third = await collect(agent.stream('third', { threadId: 't1' }));
    expect(ofType(third, 'tool-end')[0]).toMatchObject({ name: 'echo', ok: true });
    expect(String((await toolMessages(agent, 't1')).at(-1)?.content)).toContain('three');
  });
});
