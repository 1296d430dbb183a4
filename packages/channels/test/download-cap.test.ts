import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { FakeOpenAi, StreamedBody } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Harness,
  OWNER,
  SLACK_OWNER,
  slackCore,
  startHarness,
  stopStarted,
  telegramCore,
} from './harness.js';

// A file much bigger than the cap, whose size the platform does not announce (or announces wrongly): it must be
// refused as soon as its bytes pass the cap, not after it was read whole into memory.
const CAP = 1_000_000;
const HUGE = 50_000_000;
/** What the fake may have written before it saw the connection close: the cap plus socket buffers, far from HUGE. */
const READ_AT_MOST = 10_000_000;
const DM = 'D0OWNER';
const VOICE_KEY = 'sk-voice-key-never-logged';

let h: Harness | undefined;
let openai: FakeOpenAi | undefined;
afterEach(async () => {
  await stopStarted(h, openai);
  h = undefined;
  openai = undefined;
});

async function uploadsOf(harness: Harness): Promise<string[]> {
  return readdir(join(harness.setup.workspaces.root, 'alice', 'uploads')).catch(() => []);
}

/** The connection was closed by the channel long before the fake wrote the whole body. */
async function expectCutShort(body: StreamedBody): Promise<void> {
  await body.over;
  expect(body.closedEarly).toBe(true);
  expect(body.written).toBeLessThan(READ_AT_MOST);
}

async function transcribing(): Promise<FakeOpenAi> {
  openai = new FakeOpenAi('never heard');
  await openai.start();
  return openai;
}

describe('a Slack file over the cap whose size Slack did not announce, or announced wrongly', () => {
  it('refuses a shared file without a size once its bytes pass the cap, and saves nothing', async () => {
    h = await startHarness({
      slack: 'socket',
      script: [{ text: 'never' }],
      channels: { max_file_bytes: CAP },
    });
    const { slack } = h;
    const body = new StreamedBody(HUGE);
    const file = slack.addFile('F1', 'big.bin', 'application/octet-stream', body);
    expect(file.size).toBeUndefined();
    await slack.deliver(slack.message(DM, SLACK_OWNER, '', { subtype: 'file_share', files: [file] }));
    const said = await slack.waitFor('a reply', () => slack.messagesIn(DM)[0]);
    await slackCore(h).idle();
    expect(said.text).toMatch(/^Not saved: big\.bin \(too large: .*1000000/);
    await expectCutShort(body);
    expect(await uploadsOf(h)).toEqual([]);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
  });

  it('refuses an audio clip whose announced size is a lie, without transcribing it', async () => {
    const { url } = await transcribing();
    h = await startHarness({
      slack: 'socket',
      script: [{ text: 'never' }],
      channels: { max_file_bytes: CAP, voice: { base_url: url } },
      env: { BIRDIE_VOICE_API_KEY: VOICE_KEY },
    });
    const { slack } = h;
    const body = new StreamedBody(HUGE);
    const clip = { ...slack.addFile('F2', 'audio_message.webm', 'audio/webm', body), size: 10 };
    await slack.deliver(
      slack.message(DM, SLACK_OWNER, '', {
        subtype: 'file_share',
        files: [{ ...clip, subtype: 'slack_audio' }],
      }),
    );
    const said = await slack.waitFor('a reply', () => slack.messagesIn(DM)[0]);
    await slackCore(h).idle();
    expect(said.text).toMatch(/^Not transcribed: the voice message \(too large/);
    await expectCutShort(body);
    expect(openai?.requests).toEqual([]);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
  });
});

/** Starts a Telegram harness with the cap, sends the owner a document served by `body`, and waits for the reply. */
async function sendTelegramDocument(body: StreamedBody) {
  h = await startHarness({ script: [{ text: 'never' }], channels: { max_file_bytes: CAP } });
  const { api } = h;
  api.addFile('doc-1', body);
  api.push(
    api.message(OWNER, OWNER, '', {
      text: undefined,
      document: { file_id: 'doc-1', file_unique_id: 'd1', file_name: 'big.bin' },
    }),
  );
  const said = await api.waitFor('a reply', () => api.messagesIn(OWNER)[0]);
  await telegramCore(h).idle();
  return { said, harness: h };
}

describe('a Telegram file over the cap whose size Telegram did not announce, or announced wrongly', () => {
  it('refuses a document without file_size once its bytes pass the cap, and saves nothing', async () => {
    const body = new StreamedBody(HUGE);
    const { said, harness } = await sendTelegramDocument(body);
    expect(said.text).toMatch(/too large/);
    await expectCutShort(body);
    expect(await uploadsOf(harness)).toEqual([]);
    expect(await harness.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
  });

  it('refuses a document whose Content-Length is over the cap before reading its body', async () => {
    const body = new StreamedBody(HUGE, { contentLength: HUGE });
    const { said, harness } = await sendTelegramDocument(body);
    expect(said.text).toMatch(/too large/);
    expect(said.text).toContain(String(HUGE)); // the size the file server announced
    await expectCutShort(body);
    expect(await uploadsOf(harness)).toEqual([]);
  });

  it('refuses a voice message whose file_size is a lie, without transcribing it', async () => {
    const { url } = await transcribing();
    h = await startHarness({
      script: [{ text: 'never' }],
      channels: { max_file_bytes: CAP, voice: { base_url: url } },
      env: { BIRDIE_VOICE_API_KEY: VOICE_KEY },
    });
    const { api } = h;
    const body = new StreamedBody(HUGE);
    api.addFile('voice-1', body);
    api.push(
      api.message(OWNER, OWNER, '', {
        text: undefined,
        voice: {
          file_id: 'voice-1',
          file_unique_id: 'v1',
          duration: 2,
          mime_type: 'audio/ogg',
          file_size: 9,
        },
      }),
    );
    const said = await api.waitFor('a reply', () => api.messagesIn(OWNER)[0]);
    await telegramCore(h).idle();
    expect(said.text).toMatch(/too large/);
    await expectCutShort(body);
    expect(openai?.requests).toEqual([]);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toEqual([]);
  });
});
