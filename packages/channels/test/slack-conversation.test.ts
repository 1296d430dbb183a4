import { afterEach, describe, expect, it } from 'vitest';
import { REFUSAL, toSlack } from '../src/index.js';
import { type Harness, SLACK_OWNER, SLACK_STRANGER, slackCore, startHarness } from './harness.js';

const ANSWER =
  'Birds are warm blooded vertebrates with feathers and beaks and they lay hard shelled eggs and most of them can fly';
const DM = 'D0OWNER';
const STRANGER_DM = 'D0STRANGER';
const CHANNEL = 'C0GENERAL';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await h?.cleanup();
  h = undefined;
});

describe('a Slack conversation over Socket Mode', () => {
  it('streams the answer into one message, edited as it grows', async () => {
    h = await startHarness({
      slack: 'socket',
      script: { stream: true, replies: [{ text: ANSWER, token_delay_ms: 40 }] },
    });
    const { slack } = h;
    expect(slack.socketConnections).toBe(1);
    expect(slack.callsOf('apps.connections.open')).toHaveLength(1);
    expect(await slack.deliver(slack.message(DM, SLACK_OWNER, 'tell me about birds'))).toBe(200);
    const final = await slack.waitFor('the whole answer', () =>
      slack.messagesIn(DM).find((m) => m.text === toSlack(ANSWER)),
    );
    await slackCore(h).idle();
    // One message, posted with the first tokens and updated until it held the whole answer.
    expect(slack.messagesIn(DM)).toHaveLength(1);
    expect(final.threadTs).toBeUndefined(); // a DM outside a thread is answered in the DM
    expect(final.versions.length).toBeGreaterThanOrEqual(3);
    expect(final.versions[0]?.length).toBeLessThan(toSlack(ANSWER).length);
    expect(slack.callsOf('chat.update').length).toBe(final.versions.length - 1);
    const runs = await h.setup.rt.store.runs.list({ userId: 'alice' });
    expect(runs.map((r) => r.status)).toEqual(['ok']);
    expect(h.logs.join('\n')).toContain('Socket Mode');
  });

  it('refuses a stranger once, politely, without a session or a model call', async () => {
    h = await startHarness({ slack: 'socket', script: [{ text: 'never said' }] });
    const { slack } = h;
    await slack.deliver(slack.message(STRANGER_DM, SLACK_STRANGER, 'hello?'));
    await slack.deliver(slack.message(STRANGER_DM, SLACK_STRANGER, 'hello again?'));
    await slack.waitFor('the refusal', () => slack.messagesIn(STRANGER_DM).length === 1);
    await slackCore(h).idle();
    expect(slack.messagesIn(STRANGER_DM).map((m) => m.text)).toEqual([toSlack(REFUSAL)]);
    expect(await h.setup.rt.store.sessions.list('alice')).toEqual([]);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
    expect(h.logs.join('\n')).toContain(`refused user ${SLACK_STRANGER}`);
  });

  it('in a channel: answers a mention in its thread, then the thread, and nothing else', async () => {
    h = await startHarness({
      slack: 'socket',
      script: [
        { match: 'say hello', text: 'Hello channel.' },
        { match: 'and again', text: 'Again, in the thread.' },
      ],
    });
    const { slack } = h;
    await slack.deliver(slack.message(CHANNEL, SLACK_OWNER, 'just chatting'));
    const { mention, echo, ts: thread } = slack.mention(CHANNEL, SLACK_OWNER, 'say hello');
    await slack.deliver(mention);
    await slack.deliver(echo); // the same post as a message event: not answered twice
    await slack.waitFor('the answer', () =>
      slack.messagesIn(CHANNEL, thread).find((m) => m.text.includes('Hello channel')),
    );
    await slackCore(h).idle();
    await slack.deliver(slack.message(CHANNEL, SLACK_OWNER, 'and again', { thread_ts: thread }));
    await slack.waitFor('the thread answer', () =>
      slack.messagesIn(CHANNEL, thread).find((m) => m.text.includes('Again, in the thread')),
    );
    // Another thread the bot is not in: nothing.
    await slack.deliver(slack.message(CHANNEL, SLACK_OWNER, 'and again', { thread_ts: '1.000001' }));
    await slackCore(h).idle();
    expect(slack.messagesIn(CHANNEL).map((m) => m.threadTs)).toEqual([thread, thread]);
    const runs = await h.setup.rt.store.runs.list({ userId: 'alice' });
    expect(runs).toHaveLength(2);
    expect(await h.setup.rt.store.sessions.list('alice')).toHaveLength(1);
  });

  it('splits a long answer into several messages and converts Markdown to mrkdwn', async () => {
    const paragraph = 'word '.repeat(300).trim();
    const long = [
      '**Bold** and a [link](https://example.com) <!channel>',
      ...Array.from({ length: 5 }, (_, i) => `Part ${i + 1}. ${paragraph}`),
    ].join('\n\n');
    h = await startHarness({ slack: 'socket', script: [{ text: long, stream: false }] });
    const { slack } = h;
    await slack.deliver(slack.message(DM, SLACK_OWNER, 'a long one please'));
    await slack.waitFor('the last part', () => slack.messagesIn(DM).find((m) => m.text.startsWith('Part 5')));
    await slackCore(h).idle();
    const texts = slack.messagesIn(DM).map((m) => m.text);
    expect(texts.length).toBeGreaterThanOrEqual(3);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(4000);
    expect(texts[0]).toContain('*Bold*');
    expect(texts[0]).toContain('<https://example.com|link>');
    // The model cannot ping the channel: its `<!channel>` is shown as text.
    expect(texts[0]).toContain('&lt;!channel>');
    expect(texts[0]).not.toContain('<!channel>');
    // Cut between paragraphs, nothing lost.
    const joined = texts.map((t) => t.trimEnd()).join('\n\n');
    for (let i = 1; i <= 5; i++) expect(joined).toContain(`Part ${i}. ${paragraph}`);
  });
});

describe('strangers across a restart', () => {
  it('refuses a stranger once, even when the channels restart in between', async () => {
    h = await startHarness({ slack: 'socket', script: [{ text: 'never said' }] });
    const { slack } = h;
    await slack.deliver(slack.message(STRANGER_DM, SLACK_STRANGER, 'hello?'));
    await slack.waitFor('the refusal', () => slack.messagesIn(STRANGER_DM).length === 1);
    await slackCore(h).idle();
    await h.stop();
    await h.restart();
    await slack.waitFor('the new connection', () => slack.socketConnections === 1);
    await slack.deliver(slack.message(STRANGER_DM, SLACK_STRANGER, 'hello after the restart?'));
    await slack.waitFor('the message seen', () =>
      h?.logs.some((l) => l.includes(`ignored user ${SLACK_STRANGER}`)),
    );
    await slackCore(h).idle();
    expect(slack.messagesIn(STRANGER_DM)).toHaveLength(1);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
  });
});

describe('several allowed users in one thread', () => {
  it('gives each allowed user of a channel thread their own session; only its owner decides its approvals', async () => {
    const BOB = 'UBOB';
    h = await startHarness({
      slack: 'socket',
      script: [
        { match: 'alice here', text: 'Hello alice.' },
        { match: 'bob here', text: 'Hello bob.' },
        { match: 'shout', tool_calls: [{ name: 'shout', args: { text: 'hi' } }] },
      ],
      settings: { approval: 'always' },
      channels: { slack: { allow: { [SLACK_OWNER]: 'alice', [BOB]: 'bob' } } },
    });
    const { slack } = h;
    const { mention, ts: thread } = slack.mention(CHANNEL, SLACK_OWNER, 'alice here');
    await slack.deliver(mention);
    await slack.waitFor('alice answered', () =>
      slack.messagesIn(CHANNEL, thread).find((m) => m.text.includes('Hello alice')),
    );
    await slackCore(h).idle();
    // Bob writes in the thread (no mention needed: the bot is in it) and gets his own session.
    await slack.deliver(slack.message(CHANNEL, BOB, 'bob here', { thread_ts: thread }));
    await slack.waitFor('bob answered', () =>
      slack.messagesIn(CHANNEL, thread).find((m) => m.text.includes('Hello bob')),
    );
    await slackCore(h).idle();
    expect(await h.setup.rt.store.sessions.list('alice')).toHaveLength(1);
    expect(await h.setup.rt.store.sessions.list('bob')).toHaveLength(1);
    expect(
      slack
        .messagesIn(CHANNEL)
        .map((m) => m.text)
        .join('\n'),
    ).not.toContain('belongs to another');
    // Alice's call waits for her decision: Bob's press is refused, and his session is not touched.
    await slack.deliver(slack.message(CHANNEL, SLACK_OWNER, 'shout it', { thread_ts: thread }));
    const question = await slack.waitFor('the approval', () =>
      slack.messagesIn(CHANNEL, thread).find((m) => m.buttons !== undefined),
    );
    await slackCore(h).idle();
    await slack.deliver(slack.press(question, BOB, question.buttons?.[0]?.action_id as string));
    await slack.waitFor('the refusal', () => slack.ephemerals.find((e) => e.user === BOB));
    expect(slack.ephemerals.map((e) => [e.user, e.text])).toEqual([
      [BOB, "Only this session's owner can decide this."],
    ]);
    const [aliceSession] = await h.setup.rt.store.sessions.list('alice');
    expect((await h.setup.rt.agent.getState(aliceSession?.id as string)).pendingApprovals).toHaveLength(1);
  });
});
