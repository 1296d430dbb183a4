import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, SLACK_OWNER, slackCore, startHarness } from './harness.js';

const DM = 'D0OWNER';
const CHANNEL = 'C0GENERAL';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await h?.cleanup();
  h = undefined;
});

/** Polls `check` until it holds (or fails after `timeoutMs`). */
async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until the second delivery was either dropped (logged) or started a second run. */
async function secondSeen(harness: Harness, runs = 1) {
  await until(
    'the second delivery handled',
    async () =>
      harness.logs.some((l) => l.includes('already delivered')) ||
      (await harness.setup.rt.store.runs.list({ userId: 'alice' })).length > runs,
  );
  await slackCore(harness).idle();
}

describe('Slack events delivered more than once (Events API, no retry header)', () => {
  it('runs an event once when it arrives twice, and again after a restart', async () => {
    h = await startHarness({
      slack: 'events',
      script: [{ text: 'Hello once.' }, { text: 'Hello twice.' }, { text: 'Hello thrice.' }],
    });
    const { slack } = h;
    const event = slack.message(DM, SLACK_OWNER, 'hi');
    expect(await slack.post(event)).toBe(200);
    expect(await slack.post(event)).toBe(200); // the same event_id, no X-Slack-Retry-Num
    await slack.waitFor('the answer', () => slack.messagesIn(DM).find((m) => m.text.includes('Hello')));
    await secondSeen(h);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toHaveLength(1);
    expect(slack.messagesIn(DM).map((m) => m.text.trim())).toEqual(['Hello once.']);

    // A restarted process (or another worker on the same store) has no memory of its own: the store has.
    await h.stop();
    await h.restart();
    slack.eventsUrl = h.running.channels.slack?.url ?? '';
    const before = h.logs.length;
    expect(await slack.post(event)).toBe(200);
    const again = h;
    await until(
      'the redelivery handled',
      async () =>
        again.logs.slice(before).some((l) => l.includes('already delivered')) ||
        (await again.setup.rt.store.runs.list({ userId: 'alice' })).length > 1,
    );
    await slackCore(h).idle();
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toHaveLength(1);
    expect(slack.messagesIn(DM)).toHaveLength(1);
  });

  it('answers a mention once when Slack sends it as app_mention and as message', async () => {
    h = await startHarness({
      slack: 'events',
      script: [{ match: 'say hello', text: 'Hello channel.' }, { text: 'A second answer.' }],
    });
    const { slack } = h;
    // The bot is in the thread already (a first mention), so a message in it is answered too.
    const first = slack.mention(CHANNEL, SLACK_OWNER, 'say hello');
    await slack.post(first.mention);
    await slack.waitFor('the first answer', () => slack.messagesIn(CHANNEL, first.ts).length === 1);
    await slackCore(h).idle();
    // A second mention inside that thread: its app_mention and its message event, each with its own event_id.
    const second = slack.mention(CHANNEL, SLACK_OWNER, 'say hello again', { thread_ts: first.ts });
    await slack.post(second.echo);
    await slack.post(second.mention);
    await slack.waitFor('the second answer', () => slack.messagesIn(CHANNEL, first.ts).length >= 2);
    await secondSeen(h, 2);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toHaveLength(2);
    expect(slack.messagesIn(CHANNEL, first.ts)).toHaveLength(2);
  });
});

describe('Slack apps sharing one store', () => {
  it("does not take another app's delivery of the same post for a redelivery of its own", async () => {
    h = await startHarness({
      slack: 'events',
      script: [{ text: 'Hello from one app.' }, { text: 'Hello from the other.' }],
    });
    const { slack } = h;
    const event = slack.message(DM, SLACK_OWNER, 'hi');
    // Another birdie Slack app on this store got the same post (a Slack Connect channel, say): its own event id.
    expect(await slack.post({ ...event, api_app_id: 'A2OTHER', event_id: 'EvOtherApp' })).toBe(200);
    await slack.waitFor('the first answer', () => slack.messagesIn(DM).length === 1);
    await slackCore(h).idle();
    expect(await slack.post(event)).toBe(200);
    await secondSeen(h);
    expect(h.logs.some((l) => l.includes('already delivered'))).toBe(false);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toHaveLength(2);
  });
});

describe('Slack events delivered more than once (Socket Mode)', () => {
  it('runs an event once when a second envelope carries the same event', async () => {
    h = await startHarness({ slack: 'socket', script: [{ text: 'Hello once.' }, { text: 'Hello twice.' }] });
    const { slack } = h;
    const event = slack.message(DM, SLACK_OWNER, 'hi');
    expect(await slack.deliver(event)).toBe(200);
    expect(await slack.deliver(event)).toBe(200); // a new envelope id, no retry_attempt: the same event_id
    await slack.waitFor('the answer', () => slack.messagesIn(DM).find((m) => m.text.includes('Hello')));
    await secondSeen(h);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toHaveLength(1);
    expect(slack.messagesIn(DM).map((m) => m.text.trim())).toEqual(['Hello once.']);
  });
});
