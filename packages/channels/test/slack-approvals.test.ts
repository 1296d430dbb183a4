import type { SlackMessage } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, SLACK_OWNER, SLACK_STRANGER, slackCore, startHarness } from './harness.js';

const CHANNEL = 'C0GENERAL';

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

/** Mentions the bot with "shout" in a channel and waits for the approval message with its three buttons. */
async function askForApproval(harness: Harness): Promise<{ question: SlackMessage; thread: string }> {
  const { slack } = harness;
  const { mention, ts: thread } = slack.mention(CHANNEL, SLACK_OWNER, 'shout hello please');
  await slack.deliver(mention);
  const question = await slack.waitFor('the approval question', () =>
    slack.messagesIn(CHANNEL, thread).find((m) => m.buttons !== undefined),
  );
  await slackCore(harness).idle();
  expect(question.text).toContain('Approval needed');
  expect(question.buttons?.map((b) => b.text)).toEqual(['Approve', 'For this session', 'Reject']);
  return { question, thread };
}

function actionOf(question: SlackMessage, text: string): string {
  const button = question.buttons?.find((b) => b.text === text);
  if (!button) throw new Error(`no ${text} button`);
  return button.action_id;
}

describe('approvals as Slack buttons', () => {
  it("runs the call when the owner approves; someone else's press and a stale press are refused", async () => {
    h = await startHarness({ slack: 'events', script: SCRIPT, settings: { approval: 'always' } });
    const { slack } = h;
    const { question, thread } = await askForApproval(h);
    // The button's value names the call (a hash of its id and its digest), as Telegram's do, and the owner of the
    // thread's session it belongs to (each user of a channel thread has their own).
    expect(question.buttons?.[0]?.value).toMatch(new RegExp(`^ap:a:[A-Za-z0-9_-]{32}:${SLACK_OWNER}$`));
    const reject = actionOf(question, 'Reject');

    // Someone else presses Approve: an ephemeral refusal to them, nothing runs.
    expect(await slack.post(slack.press(question, SLACK_STRANGER, actionOf(question, 'Approve')))).toBe(200);
    const refusal = await slack.waitFor('the refusal', () => slack.ephemerals[0]);
    expect(refusal).toEqual({
      channel: CHANNEL,
      user: SLACK_STRANGER,
      text: "Only this session's owner can decide this.",
      threadTs: thread,
    });
    await slackCore(h).idle();
    expect((await h.setup.rt.store.runs.list({ userId: 'alice' })).map((r) => r.status)).toEqual([
      'interrupted',
    ]);

    // The owner approves: the call runs and the answer comes, in the thread.
    await slack.post(slack.press(question, SLACK_OWNER, actionOf(question, 'Approve')));
    await slack.waitFor('the answer', () =>
      slack.messagesIn(CHANNEL, thread).find((m) => m.text.includes('I shouted it for you')),
    );
    await slackCore(h).idle();
    expect(slack.ephemerals[1]?.text).toBe('Approve: shout');
    expect(question.buttons).toBeUndefined(); // updated: decided, no buttons
    expect(question.text).toContain('Approve');
    const [resumed] = await h.setup.rt.store.runs.list({ userId: 'alice' });
    expect(resumed?.toolCalls.map((c) => [c.name, c.status])).toEqual([['shout', 'ok']]);

    // The same message's other button: already decided.
    await slack.post(slack.press(question, SLACK_OWNER, reject));
    await slack.waitFor('the stale answer', () => slack.ephemerals.length === 3);
    expect(slack.ephemerals[2]?.text).toBe('This call is already decided.');
  });

  it('keeps the thread session and its pending approval across a restart', async () => {
    h = await startHarness({ slack: 'socket', script: SCRIPT, settings: { approval: 'always' } });
    const { slack } = h;
    const { question, thread } = await askForApproval(h);
    const [session] = await h.setup.rt.store.sessions.list('alice');
    await h.stop();
    await h.restart();
    await slack.waitFor('the new connection', () => slack.socketConnections === 1);
    await slack.deliver(slack.press(question, SLACK_OWNER, actionOf(question, 'For this session')));
    await slack.waitFor('the answer after the restart', () =>
      slack.messagesIn(CHANNEL, thread).find((m) => m.text.includes('I shouted it for you')),
    );
    await slackCore(h).idle();
    expect((await h.setup.rt.store.sessions.list('alice')).map((s) => s.id)).toEqual([session?.id]);
    const state = await h.setup.rt.agent.getState(session?.id as string);
    expect(state.pendingApprovals).toEqual([]);
    expect(state.sessionApprovals.map((a) => a.tool)).toEqual(['shout']);
  });

  it('a call near the limit is asked with its buttons: its Slack text is split into sections Slack takes (review)', async () => {
    // & < > are escaped for Slack (&amp; …) and Markdown characters are escaped too: the sent text grows past Slack's
    // 3,000 characters per section although the call is short enough to be shown whole.
    const text = `${'a&b (c). '.repeat(160)}END`;
    const script = [
      { match: 'long', tool_calls: [{ name: 'shout', args: { text } }] },
      { match: 'long', text: 'Shouted the long one.' },
    ];
    h = await startHarness({ slack: 'events', script, settings: { approval: 'always' } });
    const { slack } = h;
    const { mention, ts: thread } = slack.mention(CHANNEL, SLACK_OWNER, 'long one please');
    await slack.deliver(mention);
    const question = await slack.waitFor('the approval question', () =>
      slack.messagesIn(CHANNEL, thread).find((m) => m.buttons !== undefined),
    );
    expect(question.buttons?.map((b) => b.text)).toEqual(['Approve', 'For this session', 'Reject']);
    expect(question.text).toContain('END');
    await slack.post(slack.press(question, SLACK_OWNER, actionOf(question, 'Approve')));
    await slack.waitFor('the answer', () =>
      slack.messagesIn(CHANNEL, thread).find((m) => m.text.includes('Shouted the long one')),
    );
  });
});
