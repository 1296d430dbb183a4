import { methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import type { ApprovalRequest } from '@birdie/graph';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { connect, fakeRuntime, outline, W, WORK } from './helpers.js';

const init = (fs = false) => ({
  protocolVersion: PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs }, terminal: false },
});

type Connected = ReturnType<typeof connect>;

/** Initialises the connection (`fs`: the client offers file reads and writes) and opens a session in `cwd`. */
async function openSession(test: Connected, cwd = W, fs = false): Promise<string> {
  await test.connection.agent.request(methods.agent.initialize, init(fs));
  return (await test.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] })).sessionId;
}

/** Sends one text prompt to the session: the turn's stop reason comes back. */
const say = (test: Connected, sessionId: string, text: string) =>
  test.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text }],
  });

const PLAN = 'Plan: 0 of 2 steps done\n[ ] 1. Look\n[ ] 2. Leap\nNext: step 1 — Look';

const request = (id: string, tool: string, skill?: string): ApprovalRequest => ({
  id,
  digest: 'd'.repeat(64),
  tool,
  ...(skill ? { skill } : {}),
  args: { command: 'make clean' },
  description: `Run shell command: make clean (${id})`,
  reason: 'raw-command',
});

/** A tool that is not a raw shell command: its question offers the whole tool for the session. */
const deploy = (id: string): ApprovalRequest => ({
  id,
  digest: 'd'.repeat(64),
  tool: 'deploy',
  skill: 'release',
  args: { target: 'staging' },
  description: `Deploy to staging (${id})`,
  reason: 'approval-required',
});

describe('birdie as an ACP agent', () => {
  it('initializes with its capabilities and no authentication, and starts sessions in the approval modes', async () => {
    const { runtime } = fakeRuntime();
    const test = connect(runtime);
    const answer = await test.connection.agent.request(methods.agent.initialize, init());
    expect(answer).toMatchObject({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { loadSession: true, promptCapabilities: { embeddedContext: true } },
      authMethods: [],
      agentInfo: { name: 'birdie', version: '9.9.9' },
    });
    const session = await test.connection.agent.request(methods.agent.session.new, {
      cwd: WORK,
      mcpServers: [],
    });
    expect(session.sessionId).toBe('session-1');
    expect(session.modes?.currentModeId).toBe('ask');
    expect(session.modes?.availableModes.map((m) => m.id)).toEqual(['ask', 'always', 'never']);
    await expect(
      test.connection.agent.request(methods.agent.session.new, { cwd: 'relative', mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('streams a turn: tool call pending, the permission asked, in progress, completed, the plan, the answer', async () => {
    const { runtime, turns } = fakeRuntime({
      turn: async (_text, o) => {
        o.onEvent({
          type: 'message',
          message: new AIMessage({
            content: '',
            tool_calls: [
              { id: 'c1', name: 'run_bash', args: { command: 'make clean' }, type: 'tool_call' },
              { id: 'c2', name: 'todo_create_plan', args: { steps: ['Look', 'Leap'] }, type: 'tool_call' },
            ],
          }),
        });
        const decisions = await o.decide([request('c1', 'run_bash', 'shell')]);
        expect(decisions).toEqual({ c1: { type: 'approve' } });
        o.onEvent({
          type: 'tool-start',
          id: 'c1',
          name: 'run_bash',
          skill: 'shell',
          args: { command: 'make clean' },
        });
        o.onEvent({
          type: 'tool-end',
          id: 'c1',
          name: 'run_bash',
          ok: true,
          output: 'cleaned\n',
          truncated: false,
          durationMs: 3,
        });
        o.onEvent({ type: 'tool-start', id: 'c2', name: 'todo_create_plan', skill: 'todo', args: {} });
        o.onEvent({
          type: 'tool-end',
          id: 'c2',
          name: 'todo_create_plan',
          ok: true,
          output: PLAN,
          truncated: false,
          durationMs: 1,
        });
        o.onEvent({ type: 'token', text: 'All ' });
        o.onEvent({ type: 'token', text: 'done.' });
        return { status: 'ok' };
      },
    });
    const test = connect(runtime);
    const sessionId = await openSession(test, WORK);
    const result = await test.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: 'text', text: 'clean up' },
        { type: 'resource', resource: { uri: 'file:///work/notes.md', text: 'remember' } },
      ],
    });
    expect(result.stopReason).toBe('end_turn');
    expect(turns[0]?.text).toBe('clean up\n<file uri="file:///work/notes.md">\nremember\n</file>');
    expect(turns[0]?.options).toMatchObject({ approval: 'ask', cwd: WORK });
    expect(turns[0]?.options.files).toBeUndefined();
    expect(outline(test.updates)).toEqual([
      'tool_call c1 pending',
      'tool_call c2 pending',
      'tool_call_update c1 in_progress',
      'tool_call_update c1 completed',
      'tool_call_update c2 in_progress',
      'tool_call_update c2 completed',
      'plan in_progress,pending',
      'agent_message_chunk All ',
      'agent_message_chunk done.',
    ]);
    expect(test.updates[0]?.update).toMatchObject({
      kind: 'execute',
      title: 'run_bash make clean',
      rawInput: { command: 'make clean' },
    });
    expect(test.permissions).toHaveLength(1);
    expect(test.permissions[0]).toMatchObject({
      sessionId,
      toolCall: { toolCallId: 'c1', title: 'Run shell command: make clean (c1)', kind: 'execute' },
    });
    expect(test.permissions[0]?.options.map((o) => `${o.optionId}:${o.kind}`)).toEqual([
      'allow-once:allow_once',
      'allow-pattern:allow_always',
      'reject:reject_once',
    ]);
  });

  it("writes invisible characters of a call out in the permission's and the tool call's titles", async () => {
    const reversed = 'notes\u202etxt.sh';
    const { runtime } = fakeRuntime({
      turn: async (_text, o) => {
        o.onEvent({
          type: 'message',
          message: new AIMessage({
            content: '',
            tool_calls: [{ id: 'c1', name: 'write_file', args: { path: reversed }, type: 'tool_call' }],
          }),
        });
        await o.decide([
          {
            id: 'c1',
            digest: 'd'.repeat(64),
            tool: 'write_file',
            skill: 'filesystem',
            args: { path: reversed },
            description: `Write ${reversed}`,
            reason: 'file-change',
          },
        ]);
        return { status: 'ok' };
      },
    });
    const test = connect(runtime);
    const sessionId = await openSession(test, WORK);
    await test.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write' }],
    });
    expect(test.permissions[0]?.toolCall.title).toBe('Write notes\\u202etxt.sh');
    expect((test.updates[0]?.update as { title?: string } | undefined)?.title).toBe(
      'write_file notes\\u202etxt.sh',
    );
  });

  it('"allow for this session" is a grant on the tool bound to its skill file: asked again once another file provides it', async () => {
    let identity = 'bundled:/skills/release/SKILL.md';
    const decisions: unknown[] = [];
    const { runtime } = fakeRuntime({
      identity: () => identity,
      turn: async (text, o) => {
        decisions.push(await o.decide([deploy(text)]));
        return { status: 'ok' };
      },
    });
    const test = connect(runtime);
    test.answer = () => ({ outcome: { outcome: 'selected', optionId: 'allow-session' } });
    const sessionId = await openSession(test);
    const prompt = (text: string) =>
      test.connection.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text }],
      });
    await prompt('a');
    await prompt('b');
    expect(test.permissions).toHaveLength(1);
    identity = 'project:/repo/.agents/skills/release/SKILL.md';
    test.answer = () => ({ outcome: { outcome: 'selected', optionId: 'reject' } });
    await prompt('c');
    expect(test.permissions).toHaveLength(2);
    expect(decisions).toEqual([
      { a: { type: 'approve', scope: 'session' } },
      { b: { type: 'approve' } },
      { c: { type: 'reject', message: 'The user rejected this call in the editor.' } },
    ]);
  });

  it('a call that changes files shows its diff in the permission prompt (absolute paths, as ACP wants)', async () => {
    const { runtime } = fakeRuntime({
      turn: async (_t, o) => {
        await o.decide([
          {
            ...request('w1', 'write_file', 'filesystem'),
            reason: 'file-change',
            preview: {
              changes: [
                { kind: 'file', path: 'notes.txt', before: 'old\n', after: 'new\n' },
                { kind: 'file', path: 'new.md', before: null, after: '# hi\n' },
                { kind: 'folder', path: 'src' },
              ],
            },
          },
        ]);
        return { status: 'ok' };
      },
    });
    const test = connect(runtime);
    const sessionId = await openSession(test);
    await say(test, sessionId, 'write');
    expect(test.permissions[0]?.toolCall.content).toEqual([
      { type: 'diff', path: `${W}/notes.txt`, oldText: 'old\n', newText: 'new\n' },
      { type: 'diff', path: `${W}/new.md`, oldText: null, newText: '# hi\n' },
    ]);
  });

  it('a tool of no skill file (the model’s own agent) is never allowed for the session', async () => {
    const { runtime } = fakeRuntime({
      turn: async (_t, o) => {
        await o.decide([{ ...request('x', 'Bash'), reason: 'model-agent' }]);
        return { status: 'ok' };
      },
    });
    const test = connect(runtime);
    const sessionId = await openSession(test);
    await say(test, sessionId, 'go');
    expect(test.permissions[0]?.toolCall.toolCallId).toBe('model-x');
    expect(test.permissions[0]?.options.map((o) => o.kind)).toEqual(['allow_once', 'reject_once']);
  });

  it('session modes set the turn’s approval mode; an unknown mode is refused', async () => {
    const { runtime, turns } = fakeRuntime();
    const test = connect(runtime);
    const sessionId = await openSession(test);
    await test.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'never' });
    await say(test, sessionId, 'x');
    expect(turns[0]?.options.approval).toBe('never');
    await expect(
      test.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'yolo' }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('cancel aborts the running turn: the prompt stops with cancelled, its open calls failed', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { runtime } = fakeRuntime({
      turn: (_t, o) =>
        new Promise((resolve) => {
          o.onEvent({
            type: 'message',
            message: new AIMessage({
              content: '',
              tool_calls: [{ id: 's1', name: 'slow_sleep', args: {}, type: 'tool_call' }],
            }),
          });
          o.onEvent({ type: 'tool-start', id: 's1', name: 'slow_sleep', args: {} });
          started();
          o.signal.addEventListener('abort', () => resolve({ status: 'aborted' }));
        }),
    });
    const test = connect(runtime);
    const sessionId = await openSession(test);
    const prompt = say(test, sessionId, 'x');
    await running;
    await test.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    // The call the abort cut off is not left running in the editor.
    expect(outline(test.updates)).toEqual([
      'tool_call s1 pending',
      'tool_call_update s1 in_progress',
      'tool_call_update s1 failed',
    ]);
  });

  it('a failed turn is a JSON-RPC error with its message and code', async () => {
    const { runtime } = fakeRuntime({
      turn: async () => ({ status: 'error', error: 'The model call failed: 500', errorCode: 'model-error' }),
    });
    const test = connect(runtime);
    const sessionId = await openSession(test);
    await expect(say(test, sessionId, 'x')).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('The model call failed: 500'),
      data: { code: 'model-error' },
    });
  });

  it('loads a stored session, replaying its conversation, tool calls and plan; an unknown one is not found', async () => {
    const history = [
      new HumanMessage('plan it'),
      new AIMessage({
        content: 'Planning.',
        tool_calls: [
          { id: 'p1', name: 'todo_create_plan', args: { steps: ['Look', 'Leap'] }, type: 'tool_call' },
        ],
      }),
      new ToolMessage({ tool_call_id: 'p1', name: 'todo_create_plan', content: PLAN }),
      new AIMessage('Planned.'),
    ];
    const { runtime } = fakeRuntime({ history });
    const test = connect(runtime);
    await test.connection.agent.request(methods.agent.initialize, init());
    const loaded = await test.connection.agent.request(methods.agent.session.load, {
      sessionId: 'stored-1',
      cwd: W,
      mcpServers: [],
    });
    expect(loaded?.modes?.currentModeId).toBe('ask');
    expect(outline(test.updates)).toEqual([
      'user_message_chunk plan it',
      'agent_message_chunk Planning.',
      'tool_call p1 pending',
      'tool_call_update p1 completed',
      'plan in_progress,pending',
      'agent_message_chunk Planned.',
    ]);
    await expect(
      test.connection.agent.request(methods.agent.session.load, {
        sessionId: 'nope',
        cwd: W,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({ code: -32002 });
    await expect(
      test.connection.agent.request(methods.agent.session.prompt, { sessionId: 'nope', prompt: [] }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it("reads and writes through the client's file system when it offers both", async () => {
    const { runtime, turns } = fakeRuntime({
      turn: async (_t, o) => {
        const text = await o.files?.readTextFile(`${W}/a.txt`);
        await o.files?.writeTextFile(`${W}/a.txt`, `${text}!`);
        return { status: 'ok' };
      },
    });
    const test = connect(runtime);
    test.files.set(`${W}/a.txt`, 'unsaved');
    const sessionId = await openSession(test, W, true);
    await say(test, sessionId, 'x');
    expect(turns[0]?.options.files).toBeDefined();
    expect(test.files.get(`${W}/a.txt`)).toBe('unsaved!');
  });
});

describe('a raw shell command asks with its pattern for the session, never the whole tool', () => {
  const shellCall = (id: string, command: string): ApprovalRequest => ({
    ...request(id, 'run_bash', 'shell'),
    raw: true,
    args: { command },
    description: `Run shell command: ${command}`,
  });

  it('offers "Allow run_bash(touch *) for this session", which answers with the pattern and covers the batch', async () => {
    const decisions: unknown[] = [];
    const { runtime } = fakeRuntime({
      turn: async (_text, o) => {
        decisions.push(
          await o.decide([
            shellCall('a', 'touch one.txt'),
            shellCall('b', 'touch two.txt'),
            shellCall('c', 'rm one.txt'),
          ]),
        );
        return { status: 'ok' };
      },
    });
    const test = connect(runtime);
    test.answer = (r) => ({
      outcome: {
        outcome: 'selected',
        optionId: (r.toolCall.rawInput as { command: string }).command.startsWith('touch')
          ? 'allow-pattern'
          : 'reject',
      },
    });
    const sessionId = await openSession(test);
    await say(test, sessionId, 'go');
    expect(test.permissions.map((p) => p.options.map((o) => `${o.optionId}:${o.name}`))).toEqual([
      ['allow-once:Allow once', 'allow-pattern:Allow run_bash(touch *) for this session', 'reject:Reject'],
      ['allow-once:Allow once', 'allow-pattern:Allow run_bash(rm *) for this session', 'reject:Reject'],
    ]);
    expect(decisions).toEqual([
      {
        a: { type: 'approve', scope: 'session', pattern: 'run_bash(touch *)' },
        b: { type: 'approve', scope: 'session', pattern: 'run_bash(touch *)' },
        c: { type: 'reject', message: 'The user rejected this call in the editor.' },
      },
    ]);
  });

  it('"allow-session" answered anyway allows the call once; a compound command or the mode always offer no session choice', async () => {
    const decisions: unknown[] = [];
    const { runtime } = fakeRuntime({
      turn: async (text, o) => {
        const asked =
          text === 'plain'
            ? shellCall('p', 'touch one.txt')
            : text === 'compound'
              ? shellCall('q', 'touch a && touch b')
              : { ...shellCall('r', 'touch one.txt'), reason: 'mode-always' as const };
        decisions.push(await o.decide([asked]));
        return { status: 'ok' };
      },
    });
    const test = connect(runtime);
    test.answer = () => ({ outcome: { outcome: 'selected', optionId: 'allow-session' } });
    const sessionId = await openSession(test);
    await say(test, sessionId, 'plain');
    await say(test, sessionId, 'plain');
    await say(test, sessionId, 'compound');
    await say(test, sessionId, 'always');
    expect(test.permissions.map((p) => p.options.map((o) => o.optionId).join(' '))).toEqual([
      'allow-once allow-pattern reject',
      'allow-once allow-pattern reject',
      'allow-once reject',
      'allow-once reject',
    ]);
    expect(decisions).toEqual([
      { p: { type: 'approve' } },
      { p: { type: 'approve' } },
      { q: { type: 'approve' } },
      { r: { type: 'approve' } },
    ]);
  });
});
