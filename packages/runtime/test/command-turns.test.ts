import { afterEach, describe, expect, it } from 'vitest';
import { commandsInForce, commandTurn, serverCandidates, sessionMcp } from '../src/command-turns.js';
import { createSession } from '../src/session-start.js';
import { tempRuntime } from './helpers/temp-runtime.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const FILES = {
  'agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews.\n---\n\nReview.\n',
  'commands/review.md': '---\ndescription: Review a file\nagent: reviewer\n---\nReview $ARGUMENTS closely.\n',
  'commands/lost.md': '---\nagent: nobody\n---\nHello.\n',
  'commands/help.md': 'Hidden by the built-in.\n',
};

describe('custom commands as turns', () => {
  it('lists the commands in force, a built-in hiding one of the same name', async () => {
    const rt = await tempRuntime(FILES, cleanups);
    const session = await createSession(rt);
    const { commands, clashes } = await commandsInForce(rt, session.id, ['help']);
    expect(commands.map((c) => c.name).sort()).toEqual(['lost', 'review']);
    expect(clashes).toMatchObject([{ name: 'help', by: 'built-in' }]);
  });

  it("fills in the arguments and names the command's agent", async () => {
    const rt = await tempRuntime(FILES, cleanups);
    const session = await createSession(rt);
    expect(await commandTurn(rt, session.id, 'REVIEW', 'src/a.ts', [])).toEqual({
      text: 'Review src/a.ts closely.',
      agent: 'reviewer',
      mentions: true,
    });
  });

  it('says when the agent a command names is not defined, and is undefined for no such command', async () => {
    const rt = await tempRuntime(FILES, cleanups);
    const session = await createSession(rt);
    const turn = await commandTurn(rt, session.id, 'lost', '', []);
    expect(turn).toMatchObject({
      problem: expect.stringMatching(/^\/lost names the agent "nobody", which is not defined/),
    });
    expect(await commandTurn(rt, session.id, 'nothing', '', [])).toBeUndefined();
  });

  it('has no MCP session or server candidates for a session without MCP servers', async () => {
    const rt = await tempRuntime(FILES, cleanups);
    const session = await createSession(rt);
    const mcp = await sessionMcp(rt, session.id);
    expect(mcp).toBeUndefined();
    expect(serverCandidates(mcp, [], '@server:x')).toBeUndefined();
  });
});
