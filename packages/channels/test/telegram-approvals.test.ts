import type { FakeMessage } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, OWNER, STRANGER, startHarness, telegramCore } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await h?.cleanup();
  h = undefined;
});

const SCRIPT = [
  { match: 'shout', tool_calls: [{ name: 'shout', args: { text: 'hello birdie' } }] },
  { match: 'shout', text: 'I shouted it for you.' },
];

/** Sends "shout" and waits for the approval message with its three buttons. */
async function askForApproval(harness: Harness): Promise<FakeMessage> {
  const { api } = harness;
  api.push(api.message(OWNER, OWNER, 'shout hello please'));
  const question = await api.waitFor('the approval question', () =>
    api.messagesIn(OWNER).find((m) => m.buttons !== undefined),
  );
  await telegramCore(harness).idle();
  expect(question.text).toContain('Approval needed');
  expect(question.buttons?.[0]?.map((b) => b.text)).toEqual(['Approve', 'For this session', 'Reject']);
  return question;
}

function buttonData(question: FakeMessage, text: string): string {
  const button = question.buttons?.[0]?.find((b) => b.text === text);
  if (!button) throw new Error(`no ${text} button`);
  return button.callback_data;
}

function answersTo(harness: Harness): string[] {
  return harness.api.callsOf('answerCallbackQuery').map((c) => String(c.params.text ?? ''));
}

describe('approvals as Telegram buttons', () => {
  it("runs the call when the owner approves; someone else's press and a stale press are refused", async () => {
    h = await startHarness({ script: SCRIPT, settings: { approval: 'always' } });
    const { api } = h;
    const question = await askForApproval(h);
    const reject = buttonData(question, 'Reject');
    const runs = await h.setup.rt.store.runs.list({ userId: 'alice' });
    expect(runs.map((r) => r.status)).toEqual(['interrupted']);

    // Someone else presses Approve: refused, nothing runs.
    api.push(api.press(question, STRANGER, buttonData(question, 'Approve')));
    await api.waitFor('the refusal', () => answersTo(h as Harness).length === 1);
    expect(answersTo(h)).toEqual(["Only this session's owner can decide this."]);
    await telegramCore(h).idle();
    expect((await h.setup.rt.store.runs.list({ userId: 'alice' })).length).toBe(1);

    // The owner approves: the call runs and the answer comes.
    api.push(api.press(question, OWNER, buttonData(question, 'Approve')));
    await api.waitFor('the answer', () =>
      api.messagesIn(OWNER).find((m) => m.text.includes('I shouted it for you')),
    );
    await telegramCore(h).idle();
    expect(answersTo(h)[1]).toBe('Approve: shout');
    expect(question.buttons).toBeUndefined(); // the question was edited: decided, no buttons
    expect(question.text).toContain('Approve');
    const [resumed] = await h.setup.rt.store.runs.list({ userId: 'alice' });
    expect(resumed?.status).toBe('ok');
    expect(resumed?.toolCalls.map((c) => [c.name, c.status])).toEqual([['shout', 'ok']]);

    // The same button again: already decided.
    api.push(api.press(question, OWNER, reject));
    await api.waitFor('the stale answer', () => answersTo(h as Harness).length === 3);
    expect(answersTo(h)[2]).toBe('This call is already decided.');
  });

  it('keeps the session and its pending approval across a restart', async () => {
    h = await startHarness({ script: SCRIPT, settings: { approval: 'always' } });
    const { api } = h;
    const question = await askForApproval(h);
    const [session] = await h.setup.rt.store.sessions.list('alice');
    await h.stop();
    await h.restart();
    api.push(api.press(question, OWNER, buttonData(question, 'For this session')));
    await api.waitFor('the answer after the restart', () =>
      api.messagesIn(OWNER).find((m) => m.text.includes('I shouted it for you')),
    );
    await telegramCore(h).idle();
    const sessions = await h.setup.rt.store.sessions.list('alice');
    expect(sessions.map((s) => s.id)).toEqual([session?.id]);
    const state = await h.setup.rt.agent.getState(session?.id as string);
    expect(state.pendingApprovals).toEqual([]);
    expect(state.sessionApprovals.map((a) => a.tool)).toEqual(['shout']);
  });

  it('a new message while a call waits points at the buttons; /cancel drops the call', async () => {
    h = await startHarness({ script: SCRIPT, settings: { approval: 'always' } });
    const { api } = h;
    const question = await askForApproval(h);
    api.push(api.message(OWNER, OWNER, 'what now?'));
    await api.waitFor('the pointer', () =>
      api.messagesIn(OWNER).find((m) => m.text.includes('waiting for your decision')),
    );
    api.push(api.message(OWNER, OWNER, '/cancel'));
    await api.waitFor('the cancel', () => api.messagesIn(OWNER).find((m) => m.text.includes('Cancelled 1')));
    api.push(api.press(question, OWNER, buttonData(question, 'Approve')));
    await api.waitFor('the stale answer', () =>
      answersTo(h as Harness).includes('This call is already decided.'),
    );
  });
});

describe('the approval question shows the arguments as they are', () => {
  it('keeps an argument holding a code fence and Markdown inside the code block', async () => {
    const spoof = '```\n\n**Safe call, verified by birdie: press Approve**\n\n```json\n{';
    h = await startHarness({
      script: [{ match: 'shout', tool_calls: [{ name: 'shout', args: { text: spoof } }] }],
      settings: { approval: 'always' },
    });
    const question = await askForApproval(h);
    // MarkdownV2: one code block (backticks inside it escaped) that holds the argument as it is.
    expect(question.text.match(/(?<!\\)```/g)).toHaveLength(2);
    const start = question.text.indexOf('```');
    expect(question.text.slice(start)).toContain('**Safe call, verified by birdie: press Approve**');
    // Above it (the call's description quotes the arguments too) nothing of them is bold or code.
    const above = question.text.slice(0, start);
    expect(above).toContain('Safe call');
    expect(above).not.toMatch(/(?<!\\)\*Safe call/);
    expect(above.match(/(?<!\\)`/g)).toHaveLength(2); // only the tool name's code span
  });

  it('shows invisible characters of the arguments escaped, so what is approved reads as what runs', async () => {
    // U+202E reverses what follows it on screen: `notes\u202etxt.sh` would read as `notes` + `hs.txt`.
    const reversed = 'notes\u202etxt.sh';
    h = await startHarness({
      script: [{ match: 'shout', tool_calls: [{ name: 'shout', args: { text: reversed } }] }],
      settings: { approval: 'always' },
    });
    const question = await askForApproval(h);
    expect(question.text).not.toMatch(/[\p{Cf}]/u);
    // Written out (Telegram's MarkdownV2 then escapes its backslash), in the code block and in the description.
    expect(question.text.match(/u202etxt/g)).toHaveLength(2);
  });
});
