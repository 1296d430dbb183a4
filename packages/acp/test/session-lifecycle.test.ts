import { methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import type { ApprovalRequest } from '@birdie/graph';
import { describe, expect, it } from 'vitest';
import { connect, ELSEWHERE, fakeRuntime, outline, W, WORK } from './helpers.js';

// Issue 30, defect 13: session capabilities (list, resume, close), "allow for session" across session/load, and
// usage_update.

const init = { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} };

// A tool that is not a raw shell command: its question offers the whole tool for the session.
const deploy = (id: string): ApprovalRequest => ({
  id,
  digest: 'd'.repeat(64),
  tool: 'deploy',
  skill: 'release',
  args: { target: 'staging' },
  description: `Deploy to staging (${id})`,
  reason: 'approval-required',
});

describe('ACP session lifecycle (issue 30, defect 13)', () => {
  it('announces list, resume and close, lists the user’s sessions, resumes one without replay, closes it', async () => {
    const { runtime } = fakeRuntime();
    const test = connect(runtime);
    const answer = await test.connection.agent.request(methods.agent.initialize, init);
    expect(
      (answer as { agentCapabilities?: { sessionCapabilities?: unknown } }).agentCapabilities
        ?.sessionCapabilities,
    ).toEqual({ list: {}, resume: {}, close: {} });
    const { sessionId } = await test.connection.agent.request(methods.agent.session.new, {
      cwd: WORK,
      mcpServers: [],
    });
    const listed = await test.connection.agent.request(methods.agent.session.list, {});
    expect(listed.sessions).toEqual([
      expect.objectContaining({ sessionId, cwd: WORK, title: `title of ${sessionId}` }),
    ]);
    const resumed = await test.connection.agent.request(methods.agent.session.resume, {
      sessionId,
      cwd: ELSEWHERE,
    });
    expect(resumed.modes?.currentModeId).toBe('ask');
    expect(test.updates).toEqual([]);
    await expect(
      test.connection.agent.request(methods.agent.session.resume, { sessionId: 'nope', cwd: W }),
    ).rejects.toMatchObject({ code: -32002 });
    await test.connection.agent.request(methods.agent.session.close, { sessionId });
    // Closed: it is not open in this connection any more (load or resume opens it again).
    await expect(
      test.connection.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'hi' }],
      }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it('"allow for this session" holds after the session is loaded in a new connection (the runtime keeps it)', async () => {
    const decisions: unknown[] = [];
    const { runtime } = fakeRuntime({
      turn: async (text, o) => {
        decisions.push(await o.decide([deploy(text)]));
        return { status: 'ok' };
      },
    });
    const first = connect(runtime);
    first.answer = () => ({ outcome: { outcome: 'selected', optionId: 'allow-session' } });
    await first.connection.agent.request(methods.agent.initialize, init);
    const { sessionId } = await first.connection.agent.request(methods.agent.session.new, {
      cwd: W,
      mcpServers: [],
    });
    await first.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'a' }],
    });
    // The editor restarts: a new connection loads the session and asks again for the same tool.
    const second = connect(runtime);
    await second.connection.agent.request(methods.agent.initialize, init);
    await second.connection.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: W,
      mcpServers: [],
    });
    await second.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'b' }],
    });
    expect(second.permissions).toHaveLength(0);
    expect(decisions).toEqual([{ a: { type: 'approve', scope: 'session' } }, { b: { type: 'approve' } }]);
  });

  it('sends usage_update with the context used and the model’s window after each model call', async () => {
    const { runtime } = fakeRuntime({
      turn: async (_text, o) => {
        o.onEvent({
          type: 'usage',
          inputTokens: 1200,
          outputTokens: 30,
          model: 'scripted:scripted',
          context: { tokens: 1180, window: 128000 },
        });
        return { status: 'ok' };
      },
    });
    const test = connect(runtime);
    await test.connection.agent.request(methods.agent.initialize, init);
    const { sessionId } = await test.connection.agent.request(methods.agent.session.new, {
      cwd: W,
      mcpServers: [],
    });
    await test.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'hi' }],
    });
    expect(outline(test.updates)).toEqual(['usage_update']);
    expect(test.updates[0]!.update).toMatchObject({
      sessionUpdate: 'usage_update',
      used: 1180,
      size: 128000,
    });
  });
});

/** Starts a turn that waits to be stopped, stops it with `stop`, and returns the note its cut-off tools would read. */
async function noteOfStop(
  stop: (test: ReturnType<typeof connect>, sessionId: string) => Promise<unknown>,
): Promise<string[]> {
  const { stopNoteOf } = await import('@birdie/graph/stop-reason');
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const notes: string[] = [];
  const { runtime } = fakeRuntime({
    turn: async (_text, o) => {
      started();
      await new Promise<void>((resolve) =>
        o.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      notes.push(stopNoteOf(o.signal.reason));
      return { status: 'aborted' };
    },
  });
  const test = connect(runtime);
  await test.connection.agent.request(methods.agent.initialize, init);
  const { sessionId } = await test.connection.agent.request(methods.agent.session.new, {
    cwd: WORK,
    mcpServers: [],
  });
  const prompt = test.connection.agent
    .request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'go' }] })
    .catch(() => undefined);
  await running;
  await stop(test, sessionId);
  await prompt;
  return notes;
}

describe('ACP: what a turn stopped by closing its session says (sibling of the server drain report)', () => {
  it("session/close stops the running turn with the editor's close as the reason, not the user's cancel", async () => {
    const notes = await noteOfStop((test, sessionId) =>
      test.connection.agent.request(methods.agent.session.close, { sessionId }),
    );
    expect(notes).toEqual(['Stopped because the editor closed the session']);
  });

  it("session/cancel is the user's cancel", async () => {
    const notes = await noteOfStop((test, sessionId) =>
      test.connection.agent.notify(methods.agent.session.cancel, { sessionId }),
    );
    expect(notes).toEqual(['Cancelled by the user']);
  });
});
