import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, makeTempDir } from '@birdie/test-utils';
import { AIMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { McpManager } from '../src/index.js';
import {
  agentSetup,
  alive,
  callTools,
  collect,
  ofType,
  readPid,
  skillsFixture,
  toolMessages,
  toolSkill,
  useCleanups,
  waitFor,
} from './helpers.js';

const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

const structuredServer = fileURLToPath(new URL('./fixtures/structured-server.mjs', import.meta.url));

const cleanups = useCleanups();

/** Whether `pid` can still run: not gone, not a zombie waiting for init to reap it. */
function running(pid: number): boolean {
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
  return stat !== '' && state !== 'Z' && state !== 'X';
}

function mcpSkill(name: string, command: string, args: string[], extra = '') {
  return `---\nname: ${name}\ndescription: MCP server ${name}\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: ${command}\n  args: ${JSON.stringify(args)}\n${extra}---\n`;
}

const setup = agentSetup(cleanups);

describe('MCP through server-everything (stdio)', { timeout: 60_000 }, () => {
  it('connects lazily, only for sessions that allow the skill, and runs calls', async () => {
    const { agent, model, fx } = await setup({
      'everything/SKILL.md': mcpSkill('everything', 'node', [everything]),
    });
    fx.policy.disable('off', 'everything');
    expect(await agent.toolsFor('off')).toEqual([]);

    const tools = await agent.toolsFor('t1');
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    // Every tool but the builtin that reads the server's resources is the server's own.
    expect(tools.filter((t) => t.name !== 'mcp_read_resource').every((t) => t.skill === 'everything')).toBe(
      true,
    );
    expect(tools.map((t) => t.name)).toContain('mcp_read_resource');

    model
      .respond(
        callTools([
          { name: 'echo', args: { message: 'hello mcp' } },
          { name: 'get-sum', args: { a: 2, b: 40 }, id: 'c2' },
        ]),
      )
      .respond(new AIMessage('ok'));
    const events = await collect(agent.stream('use mcp', { threadId: 't1' }));
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
    const results = await toolMessages(agent, 't1');
    expect(results.map((m) => m.status)).toEqual(['success', 'success']);
    expect(results[0]?.content).toContain('hello mcp');
    expect(results[1]?.content).toContain('42');
  });

  it('sends the text of a result with structured content once, and names an image with its MIME type', async () => {
    const { agent, model } = await setup({
      'everything/SKILL.md': mcpSkill('everything', 'node', [everything]),
    });
    model
      .respond(
        callTools([
          { name: 'get-structured-content', args: { location: 'New York' } },
          { name: 'get-tiny-image', args: {}, id: 'c2' },
        ]),
      )
      .respond(new AIMessage('ok'));
    await collect(agent.stream('use mcp', { threadId: 't1' }));
    const [structured, image] = await toolMessages(agent, 't1');
    const text = String(structured?.content);
    expect(JSON.parse(text)).toEqual({
      temperature: expect.any(Number),
      conditions: expect.any(String),
      humidity: expect.any(Number),
    });
    expect(text).not.toContain('structuredContent');
    expect(String(image?.content)).toMatch(
      /^Here's the image you requested:\n\[image: image\/png, \d+ bytes\]/,
    );
  });

  it('sends the structured content of a result that has no text: alone, or after an image', async () => {
    const { agent, model } = await setup({
      'structured/SKILL.md': mcpSkill('structured', 'node', [structuredServer]),
    });
    model
      .respond(
        callTools([
          { name: 'structured_only', args: {} },
          { name: 'image_and_structured', args: {}, id: 'c2' },
        ]),
      )
      .respond(new AIMessage('ok'));
    await collect(agent.stream('use mcp', { threadId: 't1' }));
    const [only, image] = await toolMessages(agent, 't1');
    expect(only?.content).toBe('{"city":"Porto","temperature":18}');
    expect(image?.content).toMatch(/^\[image: image\/png, \d+ bytes\]\n\{"width":1,"height":1\}$/);
  });

  it("shows a server's progress notifications as the running call's live output, each under its own call", async () => {
    const { agent, model } = await setup({
      'everything/SKILL.md': mcpSkill('everything', 'node', [everything]),
    });
    model
      .respond(
        callTools([
          { name: 'trigger-long-running-operation', args: { duration: 0.6, steps: 3 }, id: 'slow' },
          { name: 'trigger-long-running-operation', args: { duration: 0.4, steps: 2 }, id: 'quick' },
          { name: 'echo', args: { message: 'no progress' }, id: 'plain' },
        ]),
      )
      .respond(new AIMessage('ok'));
    const events = await collect(agent.stream('use mcp', { threadId: 't1' }));
    const output = (id: string) =>
      ofType(events, 'tool-output')
        .filter((e) => e.id === id)
        .map((e) => e.text)
        .join('');
    // The SDK hands notifications on a microtask later than the response that follows them, so a server's last
    // notification, sent just before its result, can arrive after the call has ended: it is then not shown.
    expect([
      'progress 1 of 3\nprogress 2 of 3\n',
      'progress 1 of 3\nprogress 2 of 3\nprogress 3 of 3\n',
    ]).toContain(output('slow'));
    expect(['progress 1 of 2\n', 'progress 1 of 2\nprogress 2 of 2\n']).toContain(output('quick'));
    expect(output('plain')).toBe('');
    // All of a call's live output comes before its end.
    const ended = events.findIndex((e) => e.type === 'tool-end' && e.id === 'slow');
    const lastOutput = events.findLastIndex((e) => e.type === 'tool-output' && e.id === 'slow');
    expect(lastOutput).toBeLessThan(ended);
    const results = await toolMessages(agent, 't1');
    expect(String(results[0]?.content)).toContain('Steps: 3');
  });

  it('a server that exits at start says why: its exit code and the last lines it wrote to stderr', async () => {
    const { agent, model } = await setup({
      'dying/SKILL.md': mcpSkill('dying', 'bash', [
        '-c',
        'echo "config file missing: /etc/x.toml" >&2; exit 7',
      ]),
      'absent/SKILL.md': mcpSkill('absent', 'no-such-mcp-server-command', []),
      'quiet/SKILL.md': mcpSkill('quiet', 'bash', ['-c', 'exit 3']),
      'killed/SKILL.md': mcpSkill('killed', 'bash', ['-c', 'kill -9 $$']),
    });
    model.respond(new AIMessage('answered anyway'));
    const events = await collect(agent.stream('hi', { threadId: 't1' }));
    const messages = ofType(events, 'error').map((e) => e.error.message);
    const dying = messages.find((m) => m.includes('"dying"'));
    expect(dying).toMatch(/"dying" exited during start-up with exit code 7/);
    expect(dying).toContain('config file missing: /etc/x.toml');
    expect(dying).not.toContain('Connection closed');
    const absent = messages.find((m) => m.includes('"absent"'));
    expect(absent).toMatch(/no-such-mcp-server-command.*not found/);
    // Nothing on stderr: the exit code alone still says more than the SDK's "Connection closed".
    const quiet = messages.find((m) => m.includes('"quiet"'));
    expect(quiet).toMatch(/"quiet" exited during start-up with exit code 3/);
    expect(quiet).not.toContain('Connection closed');
    const killed = messages.find((m) => m.includes('"killed"'));
    expect(killed).toMatch(/"killed" exited during start-up: killed by SIGKILL/);
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
  });

  it('applies the server timeout to a tool call; the timed-out call is an error result and the turn goes on', async () => {
    const { agent, model } = await setup({
      'everything/SKILL.md': mcpSkill('everything', 'node', [everything], '  timeout: 1\n'),
    });
    model
      .respond(callTools([{ name: 'trigger-long-running-operation', args: { duration: 20, steps: 2 } }]))
      .respond(new AIMessage('it timed out'));
    const events = await collect(agent.stream('slow', { threadId: 't1' }));
    const [end] = ofType(events, 'tool-end');
    expect(end?.ok).toBe(false);
    expect(end?.output).toMatch(/time|abort/i);
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
  });

  it('runs a stdio `command: node` with the Node.js running birdie, even when PATH has no node', async () => {
    const { agent } = await setup({
      'everything/SKILL.md': mcpSkill('everything', 'node', [everything], '  env:\n    PATH: /nonexistent\n'),
    });
    expect((await agent.toolsFor('t1')).map((t) => t.name)).toContain('echo');
  });

  it("a stdio server sees a minimal environment plus what the skill declares, never the host's secrets", async () => {
    const canaries = {
      BIRDIE_TEST_SECRET_API_KEY: 'canary-api-key',
      BIRDIE_TEST_TOKEN: 'canary-token',
      BIRDIE_TEST_SECRET: 'canary-secret',
      LC_SECRET_TOKEN: 'canary-lc-token',
    };
    Object.assign(process.env, canaries);
    cleanups.push(() => {
      for (const key of Object.keys(canaries)) delete process.env[key];
    });
    // Two servers' 16 tools each are more than the tool budget binds: this test is about their environment.
    const { agent, model } = await setup(
      {
        'plain/SKILL.md': mcpSkill('plain', 'node', [everything]),
        'declared/SKILL.md': mcpSkill('declared', 'node', [everything], '  env:\n    SKILL_SETTING: on\n'),
      },
      { toolBudget: false },
    );
    model
      .respond(
        callTools([
          { name: 'plain__get-env', args: {}, id: 'p' },
          { name: 'declared__get-env', args: {}, id: 'd' },
        ]),
      )
      .respond(new AIMessage('ok'));
    await collect(agent.stream('env', { threadId: 't1' }));
    const results = await toolMessages(agent, 't1');
    expect(results).toHaveLength(2);
    for (const result of results) {
      const text = String(result.content);
      expect(text).toContain('"PATH"');
      for (const value of Object.values(canaries)) expect(text).not.toContain(value);
      expect(text).not.toMatch(/_API_KEY|TOKEN|SECRET/);
    }
    expect(String(results[1]?.content)).toContain('"SKILL_SETTING": "on"');
    // the same allowlist as tools: real locale variables pass
    if (process.env.LANG) expect(String(results[0]?.content)).toContain('"LANG"');
  });

  it('prefixes tool names with the server name when two servers clash', async () => {
    const { agent } = await setup({
      'one/SKILL.md': mcpSkill('one', 'node', [everything]),
      'two/SKILL.md': mcpSkill('two', 'node', [everything]),
      'mine/SKILL.md': toolSkill('mine', [{ name: 'mine_only', entrypoint: 'bash:true' }]),
    });
    const names = (await agent.toolsFor('t1')).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['one__echo', 'two__echo', 'one__get-sum', 'mine_only']));
    expect(names).not.toContain('echo');
  });

  it('a server that fails to start gives one clear error and the turn goes on', async () => {
    const { agent, model } = await setup({
      'broken/SKILL.md': mcpSkill('broken', '/nonexistent/mcp-server', []),
      'everything/SKILL.md': mcpSkill('everything', 'node', [everything]),
    });
    model
      .respond(callTools([{ name: 'echo', args: { message: 'still works' } }]))
      .respond(new AIMessage('answered anyway'));
    const events = await collect(agent.stream('hi', { threadId: 't1' }));
    const errors = ofType(events, 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error.code).toBe('mcp-unavailable');
    expect(errors[0]?.error.message).toMatch(/"broken"/);
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
    expect(ofType(events, 'tool-end')[0]).toMatchObject({ name: 'echo', ok: true });
  });

  it('a remote server nobody listens at is named with its address and why it cannot be reached', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const { agent, model } = await setup({
      'gone/SKILL.md': `---\nname: gone\ndescription: MCP server gone\nenabled_by_default: true\nmcp_server:\n  transport: streamable_http\n  url: ${url}\n---\n`,
    });
    model.respond(new AIMessage('no tools, still fine'));
    const events = await collect(agent.stream('hi', { threadId: 't1' }));
    const [error] = ofType(events, 'error');
    expect(error?.error.code).toBe('mcp-unavailable');
    expect(error?.error.message).toBe(
      `MCP server "gone" failed to start: cannot reach ${url} (connection refused, ECONNREFUSED)`,
    );
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
  });

  it('a server that hangs times out, is killed, and does not block the turn', async () => {
    const scratch = await makeTempDir();
    cleanups.push(() => scratch.cleanup());
    const pidfile = join(scratch.path, 'hang.pid');
    const hang =
      "require('fs').writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1000)";
    const { agent, model } = await setup(
      { 'hang/SKILL.md': mcpSkill('hang', 'node', ['-e', hang, pidfile]) },
      { mcpConnectTimeoutMs: 1000 },
    );
    model.respond(new AIMessage('no tools, still fine'));
    const events = await collect(agent.stream('hi', { threadId: 't1' }));
    expect(ofType(events, 'error').map((e) => e.error.code)).toEqual(['mcp-unavailable']);
    expect(ofType(events, 'error')[0]?.error.message).toMatch(/"hang" did not answer within 1000 ms/);
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
    const pid = await waitFor(readPid(pidfile));
    await waitFor(() => (alive(pid) ? undefined : true), 5000);
  });

  it("a server slower to start than the default limit starts within the skill's own `timeout`", async () => {
    // Like a cold `npx -y`: the server needs longer than the manager's start-up limit (here 300 ms, the default
    // 15 s) but less than the `timeout` its skill declares.
    const manager = new McpManager({ connectTimeoutMs: 300 });
    cleanups.push(() => manager.close());
    const config = {
      transport: 'stdio' as const,
      command: 'sh',
      args: ['-c', `sleep 1; exec "${process.execPath}" "${everything}"`],
      timeout: 120,
    };
    expect((await manager.tools('slowstart', config)).tools.map((t) => t.name)).toContain('echo');
  });

  it('reconnects after the server dies, and close() ends the whole process group', async () => {
    const dir = await skillsFixture({});
    cleanups.push(() => dir.dir.cleanup());
    const grandchild = join(dir.dir.path, 'grandchild.pid');
    const manager = new McpManager();
    cleanups.push(() => manager.close());
    // The server starts a grandchild in its process group; ending the group must end it too.
    const config = {
      transport: 'stdio' as const,
      command: 'sh',
      args: ['-c', `sleep 300 & echo $! > ${grandchild}; exec "${process.execPath}" "${everything}"`],
    };
    expect(manager.pids()).toEqual([]);
    const first = await manager.tools('everything', config);
    expect(first.tools.map((t) => t.name)).toContain('echo');
    const [pid] = manager.pids();
    expect(pid).toBeGreaterThan(0);
    // A second turn gets the cached list from the same process.
    expect((await manager.tools('everything', config)).tools).toBe(first.tools);
    expect(manager.pids()).toEqual([pid]);
    process.kill(pid as number, 'SIGKILL');
    await waitFor(() => (alive(pid as number) ? undefined : true));

    const second = await manager.tools('everything', config);
    const [newPid] = manager.pids();
    expect(newPid).not.toBe(pid);
    const echo = second.tools.find((t) => t.name === 'echo');
    expect(echo).toBeDefined();
    const echoed = await manager.callTool('everything', 'echo', { message: 'back' }, { timeoutMs: 10_000 });
    expect(JSON.stringify(echoed)).toContain('back');

    const sleeper = await waitFor(readPid(grandchild));
    expect(alive(sleeper)).toBe(true);
    await manager.close();
    expect(alive(newPid as number)).toBe(false);
    await waitFor(() => (alive(sleeper) ? undefined : true), 3000);
  });
});

describe('MCP servers and process exit', { timeout: 60_000 }, () => {
  it('a stdio server and what it started die with a SIGKILLed process (the process guard)', async () => {
    const scratch = await makeTempDir();
    cleanups.push(() => scratch.cleanup());
    const grandchild = join(scratch.path, 'grandchild.pid');
    const script = join(scratch.path, 'killed-child.mjs');
    const { writeFile } = await import('node:fs/promises');
    const managerUrl = new URL('../dist/index.js', import.meta.url).href;
    // the grandchild leaves the server's process group: only the guard can still find it
    await writeFile(
      script,
      `import { McpManager } from ${JSON.stringify(managerUrl)};
const manager = new McpManager();
await manager.tools('everything', { transport: 'stdio', command: 'sh', args: ['-c', ${JSON.stringify(
        `setsid sleep 300 & echo $! > ${grandchild}; exec "${process.execPath}" "${everything}"`,
      )}] });
process.stdout.write(String(manager.pids()[0]) + '\\n');
setInterval(() => {}, 1000);
`,
    );
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
    });
    const serverPid = await waitFor(() => (out.endsWith('\n') ? Number(out) : undefined), 15_000);
    const sleeper = await waitFor(readPid(grandchild));
    expect(alive(serverPid) && alive(sleeper)).toBe(true);
    child.kill('SIGKILL');
    await waitFor(() => (running(serverPid) || running(sleeper) ? undefined : true), 3000);
  });

  it('kills every server group when the process exits without close()', async () => {
    const scratch = await makeTempDir();
    cleanups.push(() => scratch.cleanup());
    const grandchild = join(scratch.path, 'grandchild.pid');
    const script = join(scratch.path, 'exit-child.mjs');
    const { writeFile } = await import('node:fs/promises');
    const managerUrl = new URL('../dist/index.js', import.meta.url).href;
    await writeFile(
      script,
      `import { McpManager } from ${JSON.stringify(managerUrl)};
const manager = new McpManager();
await manager.tools('everything', { transport: 'stdio', command: 'sh', args: ['-c', ${JSON.stringify(
        `sleep 300 & echo $! > ${grandchild}; exec "${process.execPath}" "${everything}"`,
      )}] });
process.stdout.write(String(manager.pids()[0]));
process.exit(0);
`,
    );
    const { execFileSync } = await import('node:child_process');
    const serverPid = Number(execFileSync(process.execPath, [script], { encoding: 'utf8', timeout: 45_000 }));
    const sleeper = await waitFor(readPid(grandchild));
    await waitFor(() => (alive(serverPid) || alive(sleeper) ? undefined : true), 3000);
  });
});
