import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FakeOpenAi } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { scrubbed } from '../src/index.js';
import {
  type Harness,
  OWNER,
  SLACK_APP_TOKEN,
  SLACK_BOT_TOKEN,
  SLACK_OWNER,
  SLACK_SIGNING_SECRET,
  SLACK_STRANGER,
  STRANGER,
  slackCore,
  startHarness,
  stopStarted,
  TOKEN,
  telegramCore,
} from './harness.js';

const SECRET = 'webhook-secret-never-logged_42';
const VOICE_KEY = 'sk-voice-key-never-logged';

let h: Harness | undefined;
let openai: FakeOpenAi | undefined;
afterEach(async () => {
  await stopStarted(h, openai);
  h = undefined;
  openai = undefined;
});

/** Every file under `dir`, as text. */
async function filesUnder(dir: string): Promise<Array<{ path: string; text: string }>> {
  const out: Array<{ path: string; text: string }> = [];
  for (const name of await readdir(dir, { recursive: true })) {
    const path = join(dir, name);
    if ((await stat(path)).isFile()) out.push({ path, text: (await readFile(path)).toString('latin1') });
  }
  return out;
}

describe('secrets never reach the logs', () => {
  it('a webhook conversation with voice, a stranger and a failure logs none of the secrets', async () => {
    openai = new FakeOpenAi('shout hello');
    await openai.start();
    h = await startHarness({
      script: [
        { match: 'shout', tool_calls: [{ name: 'shout', args: { text: 'hi' } }] },
        { match: 'shout', text: 'Done.' },
      ],
      settings: { approval: 'always' },
      channels: { telegram: { mode: 'webhook', webhook_port: 0 }, voice: { base_url: openai.url } },
      env: { BIRDIE_TELEGRAM_WEBHOOK_SECRET: SECRET, BIRDIE_VOICE_API_KEY: VOICE_KEY },
    });
    const { api } = h;
    const url = h.running.channels.telegram?.url as string;
    const post = (update: object, secret = SECRET) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret },
        body: JSON.stringify({ update_id: Math.floor(Math.random() * 1e9), ...update }),
      }).then((r) => r.arrayBuffer());
    api.addFile('voice-1', new TextEncoder().encode('OggS'));
    const voice = { text: undefined, voice: { file_id: 'voice-1', file_unique_id: 'v', duration: 1 } };
    await post(api.message(OWNER, OWNER, '', voice));
    const question = await api.waitFor('the approval', () => api.messagesIn(OWNER).find((m) => m.buttons));
    await post(api.press(question, OWNER, question.buttons?.[0]?.[0]?.callback_data as string));
    await api.waitFor('done', () => api.messagesIn(OWNER).find((m) => m.text.includes('Done')));
    await post(api.message(STRANGER, STRANGER, 'hi'));
    await post(api.message(OWNER, OWNER, 'hi'), 'wrong');
    // A file Telegram cannot give: the failure is logged.
    await post(
      api.message(OWNER, OWNER, '', {
        text: undefined,
        voice: { file_id: 'gone', file_unique_id: 'g', duration: 1 },
      }),
    );
    await api.waitFor('the failure logged', () => h?.logs.some((l) => l.includes('getFile')));
    await telegramCore(h).idle();
    await h.stop();
    const logged = [...h.logs, ...h.stderr].join('\n');
    expect(h.logs.length).toBeGreaterThan(5);
    for (const secret of [TOKEN, SECRET, VOICE_KEY]) {
      expect(logged).not.toContain(secret);
      for (const file of await filesUnder(h.home)) expect(file.text, file.path).not.toContain(secret);
    }
    await h.restart(); // for afterEach
  });

  it('a Slack conversation (events and Socket Mode) with voice, a stranger, bad signatures and a failure logs none of the secrets', async () => {
    openai = new FakeOpenAi('shout hello');
    await openai.start();
    const secrets = [SLACK_BOT_TOKEN, SLACK_APP_TOKEN, SLACK_SIGNING_SECRET, VOICE_KEY];
    for (const mode of ['events', 'socket'] as const) {
      h = await startHarness({
        slack: mode,
        script: [
          { match: 'shout', tool_calls: [{ name: 'shout', args: { text: 'hi' } }] },
          { match: 'shout', text: 'Done.' },
        ],
        settings: { approval: 'always' },
        channels: { voice: { base_url: openai.url } },
        env: { BIRDIE_VOICE_API_KEY: VOICE_KEY, BIRDIE_SLACK_APP_TOKEN: SLACK_APP_TOKEN },
      });
      const { slack } = h;
      const dm = 'D0OWNER';
      const clip = slack.addFile('F1', 'clip.webm', 'audio/webm', new TextEncoder().encode('webm'));
      await slack.deliver(slack.message(dm, SLACK_OWNER, '', { subtype: 'file_share', files: [clip] }));
      const question = await slack.waitFor('the approval', () => slack.messagesIn(dm).find((m) => m.buttons));
      await slack.deliver(slack.press(question, SLACK_OWNER, question.buttons?.[0]?.action_id as string));
      await slack.waitFor('done', () => slack.messagesIn(dm).find((m) => m.text.includes('Done')));
      await slack.deliver(slack.message('D0STRANGER', SLACK_STRANGER, 'hi'));
      if (mode === 'events') await slack.post(slack.message(dm, SLACK_OWNER, 'hi'), { secret: 'wrong' });
      // A file Slack cannot give: the failure is logged.
      const gone = { ...clip, id: 'gone', url_private_download: `${slack.url}/files/gone/download` };
      await slack.deliver(slack.message(dm, SLACK_OWNER, '', { subtype: 'file_share', files: [gone] }));
      await slack.waitFor('the failure logged', () =>
        h?.logs.some((l) => l.includes('downloading a file failed')),
      );
      await slackCore(h).idle();
      await h.stop();
      const logged = [...h.logs, ...h.stderr].join('\n');
      expect(h.logs.length).toBeGreaterThan(4);
      for (const secret of secrets) {
        expect(logged).not.toContain(secret);
        for (const file of await filesUnder(h.home)) expect(file.text, file.path).not.toContain(secret);
      }
      await h.restart();
      await h.stop().catch(() => undefined);
      await h.cleanup();
      h = undefined;
    }
  });

  it('scrubbed() removes a configured secret from any line', () => {
    const lines: string[] = [];
    const log = scrubbed((l) => lines.push(l), [TOKEN, undefined, 'short']);
    log(`GET https://api.telegram.org/bot${TOKEN}/getMe failed`);
    expect(lines).toEqual(['GET https://api.telegram.org/bot[secret]/getMe failed']);
  });
});
