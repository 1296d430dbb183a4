import { realpathSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { agentSetup, useCleanups } from './helpers.js';

const rootsServer = fileURLToPath(new URL('./fixtures/roots-server.mjs', import.meta.url));

const cleanups = useCleanups();
const setup = agentSetup(cleanups);

const skill = `---\nname: roots\ndescription: MCP server that records its roots\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: node\n  args: ${JSON.stringify([rootsServer])}\n---\n`;

/** The roots the server was given when it started, as file URLs. */
async function rootsAtStart(session: {
  promptText(server: string, name: string, args: Record<string, string>): Promise<string>;
}) {
  return JSON.parse(await session.promptText('roots', 'roots-at-start', {})) as string[];
}

const asRoot = (dir: string) => [pathToFileURL(dir).href];

describe('an MCP server started outside a turn gets the session’s roots at start', {
  timeout: 60_000,
}, () => {
  it('agent.mcpSession (the REPL’s /server:prompt) before any turn: the agent’s folder', async () => {
    const { agent, fx } = await setup({ 'roots/SKILL.md': skill });
    const session = await agent.mcpSession('t1');
    expect(session.servers.map((s) => s.server)).toEqual(['roots']);
    expect(await rootsAtStart(session)).toEqual(asRoot(fx.dir.path));
  });

  it('agent.mcpSession with a cwd of the embedder’s: that folder', async () => {
    const { agent, fx } = await setup({ 'roots/SKILL.md': skill });
    const workspace = realpathSync(fx.dir.path);
    const session = await agent.mcpSession('t1', { cwd: `${workspace}/roots` });
    expect(await rootsAtStart(session)).toEqual(asRoot(`${workspace}/roots`));
  });

  it('agent.toolsFor (the REPL’s /tools) before any turn: the agent’s folder', async () => {
    const { agent, fx } = await setup({ 'roots/SKILL.md': skill });
    await agent.toolsFor('t1');
    const session = await agent.mcpSession('t1', { connect: false });
    expect(session.servers.map((s) => s.server)).toEqual(['roots']);
    expect(await rootsAtStart(session)).toEqual(asRoot(fx.dir.path));
  });
});
