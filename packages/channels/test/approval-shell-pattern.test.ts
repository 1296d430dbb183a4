import type { ApprovalRequest } from '@birdie/graph';
import type { FakeMessage } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { approvalButtons, pressedDecision } from '../src/index.js';
import { type Harness, OWNER, startHarness, telegramCore } from './harness.js';

// Sibling of the MCP fix (report item 3): a raw shell command's approval offered "For this session", the whole tool:
// one press let every later command the model writes run unasked. It offers the command's pattern instead.

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await h?.cleanup();
  h = undefined;
});

const SCRIPT = [
  { match: 'first', tool_calls: [{ name: 'run_command', args: { command: 'touch one.txt' } }] },
  { match: 'first', text: 'Touched one.' },
  { match: 'second', tool_calls: [{ name: 'run_command', args: { command: 'touch two.txt' } }] },
  { match: 'second', text: 'Touched two.' },
  { match: 'third', tool_calls: [{ name: 'run_command', args: { command: 'rm one.txt' } }] },
  { match: 'third', text: 'Removed.' },
];

function questions(harness: Harness): FakeMessage[] {
  return harness.api.messagesIn(OWNER).filter((m) => m.text.includes('Approval needed'));
}

async function waitForQuestion(harness: Harness, count: number): Promise<FakeMessage> {
  const question = await harness.api.waitFor(
    `approval question ${count}`,
    () => questions(harness)[count - 1],
  );
  await telegramCore(harness).idle();
  return question;
}

describe('a raw shell command asked in a chat', () => {
  it('offers "For this session: run_command(touch *)", which lets later touch commands run unasked, and nothing else', async () => {
    h = await startHarness({
      script: SCRIPT,
      rawShell: true,
      settings: { approval: 'ask', serve: { skills: ['raw-shell'] } },
    });
    const { api } = h;
    api.push(api.message(OWNER, OWNER, 'first'));
    const question = await waitForQuestion(h, 1);
    const buttons = question.buttons?.[0] ?? [];
    expect(buttons.map((b) => b.text)).toEqual([
      'Approve',
      'For this session: run_command(touch *)',
      'Reject',
    ]);
    for (const b of buttons) expect(Buffer.byteLength(b.callback_data)).toBeLessThanOrEqual(64);
    api.push(api.press(question, OWNER, buttons[1]!.callback_data));
    await api.waitFor('the first answer', () =>
      api.messagesIn(OWNER).find((m) => m.text.includes('Touched one')),
    );
    await telegramCore(h).idle();

    // The pattern runs the next touch unasked; another command of the same tool is asked about.
    api.push(api.message(OWNER, OWNER, 'second'));
    await api.waitFor('the second answer', () =>
      api.messagesIn(OWNER).find((m) => m.text.includes('Touched two')),
    );
    await telegramCore(h).idle();
    expect(questions(h)).toHaveLength(1);
    api.push(api.message(OWNER, OWNER, 'third'));
    const third = await waitForQuestion(h, 2);
    expect(third.text).toContain('rm one.txt');
    const runs = await h.setup.rt.store.runs.list({ userId: 'alice' });
    expect(runs.flatMap((r) => r.toolCalls.map((c) => [c.name, c.status]))).toContainEqual([
      'run_command',
      'ok',
    ]);
  });

  it('a forged press of the whole-tool "For this session" at a raw command decides nothing', async () => {
    h = await startHarness({
      script: SCRIPT,
      rawShell: true,
      settings: { approval: 'ask', serve: { skills: ['raw-shell'] } },
    });
    const { api } = h;
    api.push(api.message(OWNER, OWNER, 'first'));
    const question = await waitForQuestion(h, 1);
    const approve = question.buttons?.[0]?.find((b) => b.text === 'Approve')?.callback_data as string;
    api.push(api.press(question, OWNER, approve.replace('ap:a:', 'ap:s:')));
    await api.waitFor('the answer to the press', () => api.callsOf('answerCallbackQuery').length === 1);
    expect(api.callsOf('answerCallbackQuery').map((c) => c.params.text)).toEqual([
      'This call is already decided.',
    ]);
    await telegramCore(h).idle();
    const [session] = await h.setup.rt.store.sessions.list('alice');
    const pending = (await h.setup.rt.agent.getState(session!.id)).pendingApprovals;
    expect(pending.map((r) => r.args)).toEqual([{ command: 'touch one.txt' }]);
  });
});

describe('a raw shell command question’s buttons', () => {
  const shell = (command: string, reason: ApprovalRequest['reason'] = 'raw-command'): ApprovalRequest => ({
    id: 'call-1',
    digest: 'd'.repeat(64),
    tool: 'run_bash',
    skill: 'shell',
    raw: true,
    args: { command },
    description: `Run shell command: ${command}`,
    reason,
  });
  const texts = (request: ApprovalRequest) =>
    approvalButtons(request, '123456789012345678901234')
      .flat()
      .map((b) => b.text);

  it('a pattern press decides the pattern for the session; within 64 bytes of data even with a group owner', () => {
    const request = shell('git log --oneline');
    const buttons = approvalButtons(request, '123456789012345678901234').flat();
    expect(buttons.map((b) => b.text)).toEqual([
      'Approve',
      'For this session: run_bash(git log *)',
      'Reject',
    ]);
    for (const b of buttons) expect(Buffer.byteLength(b.data)).toBeLessThanOrEqual(64);
    expect(pressedDecision(buttons[1]!.data, [request])?.decision).toEqual({
      type: 'approve',
      scope: 'session',
      pattern: 'run_bash(git log *)',
    });
  });

  it('no session button for a compound command, under the mode always, or when the label would pass 75 characters', () => {
    expect(texts(shell('touch a && touch b'))).toEqual(['Approve', 'Reject']);
    expect(texts(shell('touch a', 'mode-always'))).toEqual(['Approve', 'Reject']);
    expect(texts(shell(`${'x'.repeat(60)} run`))).toEqual(['Approve', 'Reject']);
  });
});
