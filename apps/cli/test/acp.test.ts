import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AcpProcess, outline, startAcp, stopAcp } from './helpers/acp-client.js';
import { CLI_ROOT, type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';
import { readPidFile, survives } from './helpers/processes.js';

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

let box: Sandbox;
const running: AcpProcess[] = [];
beforeEach(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
});
afterEach(async () => {
  stopAcp(running);
  await box.cleanup();
});

/** A scripted model for the birdie behind `birdie acp`: replies picked by the prompt's words. */
async function script(replies: unknown[]): Promise<NodeJS.ProcessEnv> {
  const file = join(box.dir.path, `script-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify({ replies }));
  return { LLM_VENDOR: 'scripted', LLM_SCRIPT: file };
}

function acp(args: string[], env: NodeJS.ProcessEnv): AcpProcess {
  const proc = startAcp(box, ['--skills-dir', TEST_SKILLS, ...args], env);
  running.push(proc);
  return proc;
}

/** Every line birdie wrote to stdout is one JSON-RPC message: nothing else ever reaches the editor's pipe. */
function expectProtocolOnly(proc: AcpProcess): void {
  const lines = proc.stdoutLines();
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
}

describe('birdie acp, driven by the ACP SDK client', () => {
  it('a prompt streams the plan, a tool call that asks, its permission, the results and the answer, in order', async () => {
    const env = await script([
      { match: 'tidy', tool_calls: [{ name: 'todo_create_plan', args: { steps: ['Clean up', 'Report'] } }] },
      {
        match: 'tidy',
        tool_calls: [{ name: 'run_command', args: { command: 'echo cleaned > cleaned.txt && echo ok' } }],
      },
      { match: 'tidy', text: 'All clean.' },
      {
        match: 'again',
        tool_calls: [{ name: 'run_command', args: { command: 'echo again >> cleaned.txt' } }],
      },
      { match: 'again', text: 'Done again.' },
    ]);
    const proc = acp(['--enable', 'todo'], env);
    await proc.initialize();
    const { sessionId, modes } = await proc.agent.request(methods.agent.session.new, {
      cwd: box.cwd,
      mcpServers: [],
    });
    expect(modes?.currentModeId).toBe('ask');
    proc.answer = () => ({ outcome: { outcome: 'selected', optionId: 'allow-session' } });
    const result = await proc.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'tidy up please' }],
    });
    expect(result.stopReason).toBe('end_turn');
    expect(outline(proc)).toEqual([
      'tool_call todo_create_plan pending',
      'tool_call_update todo_create_plan in_progress',
      'tool_call_update todo_create_plan completed',
      'plan Clean up:in_progress, Report:pending',
      'tool_call run_command pending',
      'permission run_command',
      'tool_call_update run_command in_progress',
      // its output while it runs (tool-output), as the call's content
      'tool_call_update run_command in_progress',
      'tool_call_update run_command completed',
      'text All clean.',
    ]);
    const running = proc.log.filter(
      (e) =>
        e.kind === 'update' &&
        e.update.sessionUpdate === 'tool_call_update' &&
        e.update.status === 'in_progress' &&
        e.update.content !== undefined,
    );
    expect(running.map((e) => e.kind === 'update' && e.update)).toEqual([
      expect.objectContaining({ content: [{ type: 'content', content: { type: 'text', text: 'ok\n' } }] }),
    ]);
    const permission = proc.log.find((e) => e.kind === 'permission');
    // A compound raw command: no pattern to offer, and never the whole tool, so no session choice.
    expect(permission?.kind === 'permission' && permission.request.options.map((o) => o.kind)).toEqual([
      'allow_once',
      'reject_once',
    ]);
    const command = proc.log.find(
      (e) =>
        e.kind === 'update' &&
        e.update.sessionUpdate === 'tool_call' &&
        e.update.title.startsWith('run_command'),
    );
    expect(command?.kind === 'update' && command.update).toMatchObject({
      kind: 'execute',
      rawInput: { command: 'echo cleaned > cleaned.txt && echo ok' },
    });
    expect(await readFile(join(box.cwd, 'cleaned.txt'), 'utf8')).toBe('cleaned\n');

    // The editor's "allow-session" at a raw command allowed that call once: the next command asks again.
    proc.log.length = 0;
    await proc.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'again' }],
    });
    expect(outline(proc)).toEqual([
      'tool_call run_command pending',
      'permission run_command',
      'tool_call_update run_command in_progress',
      'tool_call_update run_command completed',
      'text Done again.',
    ]);
    expect(await proc.end()).toBe(0);
    expectProtocolOnly(proc);
  });

  it('a rejected permission keeps the command from running; mode never asks nothing', async () => {
    const env = await script([
      { match: 'first', tool_calls: [{ name: 'run_command', args: { command: 'touch one.txt' } }] },
      { match: 'first', text: 'Refused, fine.' },
      { match: 'second', tool_calls: [{ name: 'run_command', args: { command: 'touch two.txt' } }] },
      { match: 'second', text: 'Ran it.' },
    ]);
    const proc = acp([], env);
    await proc.initialize();
    const { sessionId } = await proc.agent.request(methods.agent.session.new, {
      cwd: box.cwd,
      mcpServers: [],
    });
    proc.answer = () => ({ outcome: { outcome: 'selected', optionId: 'reject' } });
    await proc.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'first' }],
    });
    expect(existsSync(join(box.cwd, 'one.txt'))).toBe(false);
    expect(outline(proc)).toContain('tool_call_update run_command failed');
    await proc.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'never' });
    proc.log.length = 0;
    await proc.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'second' }],
    });
    expect(outline(proc).filter((line) => line.startsWith('permission'))).toEqual([]);
    expect(existsSync(join(box.cwd, 'two.txt'))).toBe(true);
  });

  it('cancel mid-tool stops the prompt with cancelled and leaves no process behind', async () => {
    const pidfile = join(box.dir.path, 'sleep.pid');
    const env = await script([
      { match: 'nap', tool_calls: [{ name: 'slow_sleep', args: { seconds: '60', pidfile } }] },
      { text: 'unused' },
    ]);
    const proc = acp([], env);
    await proc.initialize();
    const { sessionId } = await proc.agent.request(methods.agent.session.new, {
      cwd: box.cwd,
      mcpServers: [],
    });
    const prompt = proc.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'take a nap' }],
    });
    const pid = await readPidFile(pidfile);
    expect(pid).toBeGreaterThan(0);
    await proc.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    expect(await survives(pid)).toBe(false);
    expect(outline(proc)).toEqual([
      'tool_call slow_sleep pending',
      'tool_call_update slow_sleep in_progress',
      'tool_call_update slow_sleep failed',
    ]);
    expect(await proc.end()).toBe(0);
  });

  it('loads a session after a restart, replaying it, and goes on in it', async () => {
    const env = await script([
      { match: 'count', tool_calls: [{ name: 'count_words', args: { text: 'one two three' } }] },
      { match: 'count', text: 'There are 3 words.' },
      { match: 'more', text: 'Still here.' },
    ]);
    const first = acp([], env);
    await first.initialize();
    const { sessionId } = await first.agent.request(methods.agent.session.new, {
      cwd: box.cwd,
      mcpServers: [],
    });
    await first.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'count these' }],
    });
    expect(await first.end()).toBe(0);

    const second = acp([], env);
    await second.initialize();
    const loaded = await second.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: box.cwd,
      mcpServers: [],
    });
    expect(loaded?.modes?.currentModeId).toBe('ask');
    expect(outline(second)).toEqual([
      'user count these',
      'tool_call count_words pending',
      'tool_call_update count_words completed',
      'text There are 3 words.',
    ]);
    second.log.length = 0;
    await second.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'more?' }],
    });
    expect(outline(second)).toEqual(['text Still here.']);
    await expect(
      second.agent.request(methods.agent.session.load, {
        sessionId: 'no-such-session',
        cwd: box.cwd,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({ code: -32002 });
    expect(await second.end()).toBe(0);
    expectProtocolOnly(second);
  });

  it("the filesystem skill reads and writes the editor's buffers when the editor offers file access", async () => {
    await writeFile(join(box.cwd, 'notes.txt'), 'on disk\n');
    const env = await script([
      { match: 'edit', tool_calls: [{ name: 'read_file', args: { path: 'notes.txt' } }] },
      {
        match: 'edit',
        tool_calls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'rewritten\n' } }],
      },
      { match: 'edit', text: 'Edited.' },
    ]);
    const proc = acp(['--enable', 'filesystem'], env);
    proc.buffers.set(join(box.cwd, 'notes.txt'), 'unsaved in the editor\n');
    await proc.initialize(true);
    const { sessionId } = await proc.agent.request(methods.agent.session.new, {
      cwd: box.cwd,
      mcpServers: [],
    });
    await proc.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'edit the notes' }],
    });
    const completed = proc.log.flatMap((e) =>
      e.kind === 'update' && e.update.sessionUpdate === 'tool_call_update' && e.update.status === 'completed'
        ? [JSON.stringify(e.update.content)]
        : [],
    );
    expect(completed[0]).toContain('unsaved in the editor');
    // read_file, then the write's preview (what the editor holds is what the write replaces), then the write.
    expect(
      proc.log.flatMap((e) => (e.kind === 'read' || e.kind === 'write' ? [`${e.kind} ${e.path}`] : [])),
    ).toEqual([
      `read ${join(box.cwd, 'notes.txt')}`,
      `read ${join(box.cwd, 'notes.txt')}`,
      `write ${join(box.cwd, 'notes.txt')}`,
    ]);
    // The write asked first, showing the change against the editor's unsaved text.
    const permission = proc.log.find((e) => e.kind === 'permission');
    expect(permission?.kind === 'permission' && permission.request.toolCall.content).toEqual([
      {
        type: 'diff',
        path: join(box.cwd, 'notes.txt'),
        oldText: 'unsaved in the editor\n',
        newText: 'rewritten\n',
      },
    ]);
    expect(proc.buffers.get(join(box.cwd, 'notes.txt'))).toBe('rewritten\n');
    // The editor owns the file now: birdie did not write the disk.
    expect(await readFile(join(box.cwd, 'notes.txt'), 'utf8')).toBe('on disk\n');
  });

  it('refuses bad flags before it speaks: exit 2 and a message on stderr, nothing on stdout', async () => {
    const proc = acp(['--approval', 'sometimes'], await script([{ text: 'x' }]));
    expect(await proc.end()).toBe(2);
    expect(proc.stderr()).toContain('--approval must be ask, always or never');
    expect(proc.stdoutLines()).toEqual([]);
  });
});

describe('birdie acp refuses a session folder it cannot work in', () => {
  it('session/new, load and resume answer invalid params for a missing, relative, absent or non-folder cwd', async () => {
    const proc = acp([], await script([{ text: 'x' }]));
    await proc.initialize();
    const file = join(box.cwd, 'notes.txt');
    await writeFile(file, 'x\n');
    const absent = join(box.cwd, 'no-such-folder');
    const refusal = async (params: Record<string, unknown>, method = methods.agent.session.new) => {
      const error = await proc.agent.request(method, { mcpServers: [], ...params } as never).then(
        () => undefined,
        (e: { code: number; message: string; data?: unknown }) => e,
      );
      return error && { code: error.code, text: `${error.message} ${JSON.stringify(error.data)}` };
    };
    expect(await refusal({})).toMatchObject({ code: -32602, text: expect.stringContaining('cwd') });
    expect(await refusal({ cwd: 'proj' })).toMatchObject({
      code: -32602,
      text: expect.stringContaining('cwd must be an absolute path'),
    });
    expect(await refusal({ cwd: absent })).toMatchObject({
      code: -32602,
      text: expect.stringContaining(`cwd ${absent} does not exist`),
    });
    expect(await refusal({ cwd: file })).toMatchObject({
      code: -32602,
      text: expect.stringContaining(`cwd ${file} is not a folder`),
    });
    const { sessionId } = await proc.agent.request(methods.agent.session.new, {
      cwd: box.cwd,
      mcpServers: [],
    });
    for (const method of [methods.agent.session.load, methods.agent.session.resume])
      expect(await refusal({ sessionId, cwd: absent }, method as never)).toMatchObject({
        code: -32602,
        text: expect.stringContaining('does not exist'),
      });
    expectProtocolOnly(proc);
  });
});

describe('birdie acp sessions across connections (issue 30, defect 13)', () => {
  it('announces list, resume and close; "allow run_command(touch *) for session" holds after session/load in a new process; usage_update is sent', async () => {
    const env = await script([
      { match: 'first', tool_calls: [{ name: 'run_command', args: { command: 'touch one.txt' } }] },
      { match: 'first', text: 'One.' },
      { match: 'second', tool_calls: [{ name: 'run_command', args: { command: 'touch two.txt' } }] },
      { match: 'second', text: 'Two.' },
    ]);
    const first = acp([], env);
    const init = await first.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    expect(
      (init as { agentCapabilities?: { sessionCapabilities?: unknown } }).agentCapabilities
        ?.sessionCapabilities,
    ).toEqual({ list: {}, resume: {}, close: {} });
    const { sessionId } = await first.agent.request(methods.agent.session.new, {
      cwd: box.cwd,
      mcpServers: [],
    });
    // A raw command's session choice is its pattern (`run_command(touch *)`), kept by the session as a rule.
    first.answer = () => ({ outcome: { outcome: 'selected', optionId: 'allow-pattern' } });
    await first.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'first' }],
    });
    expect(outline(first)).toContain('permission run_command');
    const usage = first.log.find((e) => e.kind === 'update' && e.update.sessionUpdate === 'usage_update');
    expect(usage?.kind === 'update' && usage.update).toMatchObject({
      used: expect.any(Number),
      size: expect.any(Number),
    });
    const listed = await first.agent.request(methods.agent.session.list, {});
    expect(listed.sessions.map((s) => s.sessionId)).toContain(sessionId);
    await first.agent.request(methods.agent.session.close, { sessionId });
    expect(await first.end()).toBe(0);

    const second = acp([], env);
    await second.initialize();
    await second.agent.request(methods.agent.session.load, { sessionId, cwd: box.cwd, mcpServers: [] });
    second.answer = () => ({ outcome: { outcome: 'selected', optionId: 'reject' } });
    second.log.length = 0;
    await second.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'second' }],
    });
    expect(outline(second)).not.toContain('permission run_command');
    expect(existsSync(join(box.cwd, 'one.txt'))).toBe(true);
    expect(existsSync(join(box.cwd, 'two.txt'))).toBe(true);
    expect(await second.end()).toBe(0);
  });
});
