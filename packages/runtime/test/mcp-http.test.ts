import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { queryObjects } from 'node:v8';
import type { McpEndpoint } from '@birdie/server';
import { makeTempDir } from '@birdie/test-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type McpHost, openMcpHost } from '../src/mcp-host.js';
import { createMcpHttp } from '../src/mcp-http.js';
import { MCP_LIMIT_ERROR } from '../src/mcp-server.js';

// `birdie mcp --http` as a security review asked: what one client can hold is bounded. Driven over HTTP by the SDK's
// own client, the server in process with a clock the test moves.

const SKILL = `---
name: words
description: Word tools.
---

## Tools

### echo
description: Repeat a word.
entrypoint: bash:printf '%s' {word}
schema: { type: object, properties: { word: { type: string } }, required: [word] }
`;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(
  limits: Record<string, number>,
  settings: Record<string, unknown> = { approval: 'never' },
) {
  const dir = await makeTempDir('birdie-mcp-http-');
  cleanups.push(dir.cleanup);
  const home = join(dir.path, '.birdie');
  await mkdir(join(home, 'skills', 'words'), { recursive: true });
  await writeFile(join(home, 'skills', 'words', 'SKILL.md'), SKILL);
  await writeFile(
    join(home, 'config.json'),
    JSON.stringify({ settings: { ...settings, serve: { limits } } }),
  );
  const work = join(dir.path, 'work');
  await mkdir(work);
  const io = {
    env: { PATH: process.env.PATH, HOME: work, BIRDIE_HOME: home, USER: 'tester' },
    cwd: work,
    stderr: { write: () => true },
  };
  const host: McpHost = await openMcpHost(io, {}, { http: true });
  cleanups.push(() => host.close());
  let clock = Date.now();
  const errors: unknown[] = [];
  const endpoint: McpEndpoint = await createMcpHttp(host, {
    info: { name: 'birdie', version: '0.0.0' },
    onError: (error) => errors.push(error),
    now: () => clock,
  });
  const { url } = await endpoint.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => endpoint.close());
  const tokenOf = async (user: string) => (await host.store.tokens.create(user)).token;
  /**
   * A connected SDK client of `token`'s user (closed after the test). With `answer`, it can elicit: every approval
   * question is recorded in `asked` and answered with that decision.
   */
  const connect = async (token: string, answer?: 'once' | 'session' | 'reject') => {
    const asked: string[] = [];
    const client = new Client(
      { name: 'sdk-test', version: '1.0.0' },
      answer ? { capabilities: { elicitation: {} } } : {},
    );
    if (answer)
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message);
        return { action: 'accept', content: { decision: answer } };
      });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    cleanups.push(() => client.close().catch(() => undefined));
    return { client, transport, asked };
  };
  return { host, url, tokenOf, connect, errors, advance: (ms: number) => (clock += ms) };
}

describe('birdie mcp --http limits', { timeout: 60_000 }, () => {
  it('refuses a session over the per-user cap and over the total, with 429 mcp-sessions-limit', async () => {
    const { tokenOf, connect } = await setUp({ mcp_sessions_per_user: 2, mcp_sessions: 3 });
    const alice = await tokenOf('alice');
    const first = await connect(alice);
    await connect(alice);
    const third = await connect(alice).catch((e: unknown) => e as Error & { code?: number });
    // The SDK's StreamableHTTPError: the HTTP status, and the API's error body.
    expect((third as { code?: number }).code).toBe(429);
    expect((third as Error).message).toContain('"code":"mcp-sessions-limit"');
    expect((third as Error).message).toMatch(/alice has 2 MCP session\(s\) open.*mcp_sessions_per_user/);
    // Bob has none of his own, but the server holds its total.
    const bob = await tokenOf('bob');
    await connect(bob);
    await expect(connect(bob)).rejects.toThrow(/3 MCP session\(s\) open.*serve\.limits\.mcp_sessions\)/);
    // A session the client ends (DELETE /mcp) frees its place at once.
    await first.transport.terminateSession();
    await connect(bob);
  });

  it('closes a session idle longer than mcp_idle_seconds: its id is unknown, and its slot is free again', async () => {
    const { tokenOf, connect, advance } = await setUp({ mcp_sessions_per_user: 1, mcp_idle_seconds: 60 });
    const alice = await tokenOf('alice');
    const first = await connect(alice);
    // Used within the limit, it stays.
    advance(59_000);
    expect((await first.client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    await expect(connect(alice)).rejects.toThrow(/mcp-sessions-limit/);
    advance(59_000);
    expect((await first.client.callTool({ name: 'echo', arguments: { word: 'hi' } })).content).toEqual([
      { type: 'text', text: 'hi' },
    ]);
    // Then idle for longer than the limit: closed.
    advance(61_000);
    await expect(first.client.listTools()).rejects.toThrow(/404|Session not found/);
    const second = await connect(alice);
    expect((await second.client.listTools()).tools).toHaveLength(1);
  });

  it('applies serve.limits.turns_per_minute to tool calls, with the code birdie serve refuses a turn with', async () => {
    const { tokenOf, connect } = await setUp({ turns_per_minute: 2 });
    const { client } = await connect(await tokenOf('alice'));
    for (const word of ['a', 'b'])
      expect((await client.callTool({ name: 'echo', arguments: { word } })).isError).toBeFalsy();
    const refused = await client
      .callTool({ name: 'echo', arguments: { word: 'c' } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(MCP_LIMIT_ERROR);
    expect((refused as McpError).data).toMatchObject({ code: 'turns-per-minute-limit' });
    expect((refused as McpError).message).toMatch(/alice started 2 turn\(s\) in the last minute/);
    // Another user's calls are not counted against alice.
    const bob = await connect(await tokenOf('bob'));
    expect((await bob.client.callTool({ name: 'echo', arguments: { word: 'd' } })).isError).toBeFalsy();
  });

  it('applies serve.limits.concurrent_turns to tool calls (a run of the user still running counts)', async () => {
    const { host, tokenOf, connect } = await setUp({ concurrent_turns: 1 });
    const { client } = await connect(await tokenOf('alice'));
    // A turn of alice's running elsewhere (another worker, `birdie serve` on the same store) holds her one slot.
    const other = await host.store.sessions.create('alice', { title: 'elsewhere', perUser: true });
    const lease = await host.store.leases.acquire(other.id, { waitMs: 1000 });
    const run = await host.store.runs.start({ sessionId: other.id, userId: 'alice', trigger: 'api' });
    const refused = await client
      .callTool({ name: 'echo', arguments: { word: 'x' } })
      .catch((e: unknown) => e);
    expect((refused as McpError).data).toMatchObject({ code: 'concurrent-turns-limit' });
    await host.store.runs.finish(run, { status: 'ok' });
    await lease.release();
    expect((await client.callTool({ name: 'echo', arguments: { word: 'y' } })).content).toEqual([
      { type: 'text', text: 'y' },
    ]);
  });

  it('two tool calls of one user arriving together under concurrent_turns 1: exactly one runs, the other is refused', async () => {
    const { host, tokenOf, connect } = await setUp({ concurrent_turns: 1 });
    const alice = await tokenOf('alice');
    const [a, b] = [await connect(alice), await connect(alice)];
    // Both calls are held just past their admission until both got there (or one was refused): they arrive together.
    const workspaces = host.serve!.workspaces;
    const admit = workspaces.admit.bind(workspaces);
    let arrived = 0;
    let together!: () => void;
    const bothIn = new Promise<void>((resolve) => {
      together = resolve;
    });
    workspaces.admit = async (session) => {
      if (++arrived === 2) together();
      await bothIn;
      return admit(session);
    };
    const calls = [a, b].map((c, i) =>
      c.client.callTool({ name: 'echo', arguments: { word: `w${i}` } }).catch((e: unknown) => e),
    );
    void Promise.race(calls).then(together);
    const results = await Promise.all(calls);
    const refused = results.filter((r) => r instanceof McpError);
    expect(refused).toHaveLength(1);
    expect((refused[0] as McpError).code).toBe(MCP_LIMIT_ERROR);
    expect((refused[0] as McpError).data).toMatchObject({ code: 'concurrent-turns-limit' });
    expect(
      results.filter((r) => !(r instanceof McpError) && !(r as { isError?: boolean }).isError),
    ).toHaveLength(1);
    // The call that ran let go of its slot when it ended: the next one runs.
    expect(textOf(await b.client.callTool({ name: 'echo', arguments: { word: 'again' } }))).toBe('again');
  });
});

/** Resolves once `condition()` holds (checked every 50 ms), or fails after `ms`, saying what it waited for. */
async function until(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

describe('birdie mcp --http lets go of a closed session', { timeout: 120_000 }, () => {
  it('a tool approved "for this session" asks again in a later session of the same user (after DELETE, after the idle timeout)', async () => {
    const { url, tokenOf, connect, advance } = await setUp({ mcp_idle_seconds: 60 }, { approval: 'always' });
    const alice = await tokenOf('alice');
    const first = await connect(alice, 'session');
    for (const word of ['a', 'b'])
      expect(textOf(await first.client.callTool({ name: 'echo', arguments: { word } }))).toBe(word);
    expect(first.asked).toHaveLength(1);
    const closedId = first.transport.sessionId as string;
    await first.transport.terminateSession();
    // The closed session's id reaches nothing: a call on it is not run on what it approved.
    const reused = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${alice}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': closedId,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'echo', arguments: { word: 'again' } },
      }),
    });
    expect(reused.status).toBe(404);
    const second = await connect(alice, 'reject');
    const refused = await second.client.callTool({ name: 'echo', arguments: { word: 'c' } });
    expect(second.asked).toHaveLength(1);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('did not approve');
    // Closed by the idle timeout instead: the same.
    await second.transport.terminateSession();
    const third = await connect(alice, 'session');
    await third.client.callTool({ name: 'echo', arguments: { word: 'd' } });
    advance(61_000);
    await expect(third.client.listTools()).rejects.toThrow(/404|Session not found/);
    const fourth = await connect(alice, 'reject');
    expect((await fourth.client.callTool({ name: 'echo', arguments: { word: 'e' } })).isError).toBe(true);
    expect(fourth.asked).toHaveLength(1);
  });

  it('keeps nothing of a session once it is closed: its grants, its server (approvals, lists, listener)', async () => {
    // `skills.enable` gives every session grants, so the policy's public state shows each session it holds.
    const { host, tokenOf, connect, advance } = await setUp(
      { mcp_idle_seconds: 60 },
      { approval: 'always', skills: { enable: ['words'] } },
    );
    const held = () => Object.keys(host.policy.toJSON()).length;
    const servers = () => queryObjects(Server, { format: 'count' }) as number;
    const before = servers();
    const alice = await tokenOf('alice');
    const open = [];
    for (let i = 0; i < 4; i++) {
      // The second is asked again at each call (approved once), the others not.
      const connection = await connect(alice, i === 1 ? 'once' : 'session');
      await connection.client.callTool({ name: 'echo', arguments: { word: `w${i}` } });
      open.push(connection);
    }
    // While open, each session's grants are held (so this is what to look at).
    expect(held()).toBe(4);
    // Closed by the client (DELETE /mcp).
    await open[0]!.transport.terminateSession();
    await until(() => held() === 3, 'the first session to be let go');
    // Closed while a call waits for the client's answer: the call ends, and nothing of it stays.
    const waiting = open[1]!;
    let answered = false;
    waiting.client.setRequestHandler(ElicitRequestSchema, async () => {
      answered = true;
      return new Promise(() => undefined);
    });
    // The client's own request stays unanswered: it ended the session it asked on.
    void waiting.client.callTool({ name: 'echo', arguments: { word: 'never' } }).catch(() => undefined);
    await until(() => answered, 'the approval question');
    await waiting.transport.terminateSession();
    await until(() => held() === 2, 'the session closed during a call to be let go');
    // Closed by the idle timeout: the next request sweeps them (and opens a session that holds nothing yet).
    advance(61_000);
    await connect(alice);
    await until(() => held() === 0, 'the idle sessions to be let go');
    // The call cut short is a finished run (its lease released), the others ran.
    const runs = await host.store.runs.list({ userId: 'alice' });
    expect(runs.map((run) => run.status).sort()).toEqual(['cancelled', 'ok', 'ok', 'ok', 'ok']);
    // Nothing holds a closed connection's server: only the one still open is alive (the count before may still have
    // held an earlier test's, collected since: at most one more).
    await until(() => servers() <= before + 1, "the closed sessions' servers to be collected");
  });
});
