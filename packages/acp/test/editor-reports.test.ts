import {
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import type { AgentEvent, ApprovalDecision, ApprovalRequest } from '@birdie/graph';
import { describe, expect, it } from 'vitest';
import { connect, fakeRuntime, W } from './helpers.js';

// Reported by an editor-integration developer driving `birdie acp` by hand:
// 1. MCP sampling questions were `mcp-sampling-1`, `-2` in every prompt (ids must be unique within a session) and
//    never finished: the editor kept them pending.
// 2. A permission answer without `outcome` failed the whole prompt with "Cannot read properties of undefined".
// 3. An error reply to a permission request was told to the model as "the user cancelled the turn", logged nowhere.
// 4. A done plan step whose text holds " — " lost the rest of its text (taken for the summary's separator).
// 6. An empty prompt ran a turn with an empty user message; a resource link's title could close its Markdown link.
// 5. `session/list` with a relative `cwd` echoed it into every session; the spec wants absolute paths, as
//    `session/new|load|resume` already enforce.

const deploy: ApprovalRequest = {
  id: 'c1',
  digest: 'd'.repeat(64),
  tool: 'deploy',
  skill: 'release',
  args: { target: 'staging' },
  description: 'Deploy to staging',
  reason: 'approval-required',
};

async function open(test: ReturnType<typeof connect>): Promise<string> {
  await test.connection.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
  return (await test.connection.agent.request(methods.agent.session.new, { cwd: W, mcpServers: [] }))
    .sessionId;
}

const prompt = (test: ReturnType<typeof connect>, sessionId: string, text = 'go') =>
  test.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text }],
  });

describe('editor reports', () => {
  it('MCP sampling questions have ids unique in the session, each finished once answered', async () => {
    const { runtime } = fakeRuntime({
      turn: async (_text, o) => {
        const request = { messages: [], maxTokens: 10 };
        await o.mcp?.approveSampling?.({ server: 'everything', request });
        await o.mcp?.approveSampling?.({ server: 'everything', request, answer: 'hi' });
        return { status: 'ok', inputTokens: 0, outputTokens: 0 };
      },
    });
    const test = connect(runtime);
    let n = 0;
    test.answer = () => {
      n += 1;
      return {
        outcome: { outcome: 'selected', optionId: n % 2 === 1 ? 'allow-sampling' : 'reject-sampling' },
      };
    };
    const sessionId = await open(test);
    await prompt(test, sessionId);
    await prompt(test, sessionId);
    const ids = test.permissions.map((p) => p.toolCall.toolCallId);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    const finished = test.updates
      .map((u) => u.update)
      .filter((u) => u.sessionUpdate === 'tool_call_update')
      .map((u) => `${u.toolCallId} ${u.status}`);
    expect(finished).toEqual([
      `${ids[0]} completed`,
      `${ids[1]} failed`,
      `${ids[2]} completed`,
      `${ids[3]} failed`,
    ]);
  });

  it.each([
    [
      'an answer without outcome',
      () => ({ weird: true }) as unknown as RequestPermissionResponse,
      'not understood',
    ],
    [
      'an error reply',
      () => {
        throw new RequestError(-32603, 'client blew up');
      },
      'client blew up',
    ],
  ])(
    '%s rejects the call, says why (not a cancel), logs it, and the turn goes on',
    async (_, answer, why) => {
      const decided: Array<Record<string, ApprovalDecision>> = [];
      const { runtime, logs } = fakeRuntime({
        turn: async (_text, o) => {
          decided.push(await o.decide([deploy]));
          o.onEvent({ type: 'token', text: 'carried on' } as AgentEvent);
          return { status: 'ok', inputTokens: 0, outputTokens: 0 };
        },
      });
      const test = connect(runtime);
      test.answer = answer;
      const sessionId = await open(test);
      const result = await prompt(test, sessionId);
      expect(result.stopReason).toBe('end_turn');
      const decision = decided[0]?.c1;
      expect(decision?.type).toBe('reject');
      const message = decision?.type === 'reject' ? (decision.message ?? '') : '';
      expect(message).not.toContain('cancelled');
      expect(message).toContain('the editor');
      expect(logs.join('\n')).toContain(why);
    },
  );

  it('a done plan step keeps its whole text, " — " and all', async () => {
    const created =
      'Plan: 0 of 2 steps done\n[ ] 1. Read — the [x] 9. file\n[ ] 2. Write\nNext: step 1 — Read — the [x] 9. file';
    const done =
      'Plan: 1 of 2 steps done\n[x] 1. Read — the [x] 9. file — ok\n[ ] 2. Write\nNext: step 2 — Write';
    const { runtime } = fakeRuntime({
      turn: async (text, o) => {
        const output = text === 'make' ? created : done;
        const name = text === 'make' ? 'todo_create_plan' : 'todo_complete_step';
        o.onEvent({ type: 'tool-start', id: text, name, skill: 'todo', args: {} });
        o.onEvent({ type: 'tool-end', id: text, name, ok: true, output, truncated: false, durationMs: 1 });
        return { status: 'ok', inputTokens: 0, outputTokens: 0 };
      },
    });
    const test = connect(runtime);
    const sessionId = await open(test);
    await prompt(test, sessionId, 'make');
    await prompt(test, sessionId, 'finish');
    const plans = test.updates.map((u) => u.update).filter((u) => u.sessionUpdate === 'plan');
    expect(plans.at(-1)?.entries.map((e) => `${e.status}: ${e.content}`)).toEqual([
      'completed: Read — the [x] 9. file',
      'in_progress: Write',
    ]);
  });

  it('session/list refuses a relative cwd as session/new does', async () => {
    const { runtime } = fakeRuntime();
    const test = connect(runtime);
    await open(test);
    await expect(
      test.connection.agent.request(methods.agent.session.list, { cwd: 'relative' }),
    ).rejects.toMatchObject({ code: -32602 });
    const listed = await test.connection.agent.request(methods.agent.session.list, { cwd: W });
    expect(listed.sessions.every((s) => s.cwd.startsWith('/'))).toBe(true);
  });

  it('an empty prompt is refused (-32602) without a turn; a link title cannot close its Markdown link', async () => {
    const { runtime, turns } = fakeRuntime({
      turn: async () => ({ status: 'ok', inputTokens: 0, outputTokens: 0 }),
    });
    const test = connect(runtime);
    const sessionId = await open(test);
    for (const prompt of [[], [{ type: 'text' as const, text: '  \n' }]])
      await expect(
        test.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt }),
      ).rejects.toMatchObject({ code: -32602 });
    expect(turns).toHaveLength(0);
    await test.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'resource_link', name: 'y.ts', title: 'Why](evil) ', uri: 'file:///tmp/a (b).ts' }],
    });
    expect(turns[0]?.text).toBe('[Why\\](evil) ](file:///tmp/a%20%28b%29.ts)');
  });
});
