import { afterEach, describe, expect, it } from 'vitest';
import { isChannelError } from '../src/index.js';
import { type Harness, SLACK_OWNER, slackCore, startHarness } from './harness.js';

const DM = 'D0OWNER';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await h?.cleanup();
  h = undefined;
});

describe('the Slack Events API', () => {
  it('refuses to start without a signing secret', async () => {
    const started = startHarness({
      slack: 'events',
      script: [{ text: 'x' }],
      env: { BIRDIE_SLACK_SIGNING_SECRET: '' },
    });
    await expect(started).rejects.toSatisfy(
      (error) =>
        isChannelError(error) && error.code === 'channel-config' && /signing secret/.test(error.message),
    );
  });

  it('Socket Mode refuses to start without the app token', async () => {
    const started = startHarness({
      slack: 'socket',
      script: [{ text: 'x' }],
      env: { BIRDIE_SLACK_APP_TOKEN: '' },
    });
    await expect(started).rejects.toSatisfy(
      (error) =>
        isChannelError(error) && error.code === 'channel-config' && /app-level token/.test(error.message),
    );
  });

  it('refuses requests with a missing or wrong signature or a stale timestamp, and handles a signed one', async () => {
    h = await startHarness({ slack: 'events', script: [{ text: 'Hello from the Events API.' }] });
    const { slack } = h;
    expect(slack.eventsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/slack\/events$/);
    expect(slack.callsOf('apps.connections.open')).toEqual([]);
    const event = () => slack.message(DM, SLACK_OWNER, 'hi');
    expect(await slack.post(event(), { secret: false })).toBe(401);
    expect(await slack.post(event(), { secret: 'wrong-secret' })).toBe(401);
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    expect(await slack.post(event(), { timestamp: sixMinutesAgo })).toBe(401);
    // A button press and a slash command are checked the same way.
    expect(await slack.post(slack.command(DM, SLACK_OWNER, '/new'), { secret: 'wrong-secret' })).toBe(401);
    await slackCore(h).idle();
    expect(slack.callsOf('chat.postMessage')).toEqual([]);
    expect(await h.setup.rt.store.sessions.list('alice')).toEqual([]);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
    expect(await slack.post(event())).toBe(200);
    await slack.waitFor('the answer', () =>
      slack.messagesIn(DM).find((m) => m.text.includes('Hello from the Events API')),
    );
  });

  it('takes the commands as slash commands in a DM, and points at the thread in a channel', async () => {
    h = await startHarness({ slack: 'events', script: [{ text: 'hi' }] });
    const { slack } = h;
    expect(await slack.post(slack.command(DM, SLACK_OWNER, '/model'))).toBe(200);
    await slack.waitFor('the model', () => slack.messagesIn(DM).find((m) => m.text.includes('scripted')));
    expect(await slack.post(slack.command(DM, SLACK_OWNER, '/new'))).toBe(200);
    await slack.waitFor('a new session', () =>
      slack.messagesIn(DM).find((m) => m.text.includes('New session')),
    );
    expect(await slack.post(slack.command('C0GENERAL', SLACK_OWNER, '/new'))).toBe(200);
    await slackCore(h).idle();
    expect(slack.messagesIn('C0GENERAL')).toEqual([]);
    expect(await h.setup.rt.store.sessions.list('alice')).toHaveLength(2);
  });
});
