import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startUnattended } from '@birdie/runtime/unattended-loop';
import { FakeOpenAi } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Harness,
  SLACK_BOT_TOKEN,
  SLACK_OWNER,
  slackCore,
  startHarness,
  stopStarted,
} from './harness.js';

const VOICE_KEY = 'sk-voice-key-never-logged';
const DM = 'D0OWNER';

let h: Harness | undefined;
let openai: FakeOpenAi | undefined;
afterEach(async () => {
  await stopStarted(h, openai);
  h = undefined;
  openai = undefined;
});

describe('voice clips and files from Slack', () => {
  it('downloads an audio clip with the bot token, transcribes it, then answers it', async () => {
    openai = new FakeOpenAi('what is the weather in Lyon');
    await openai.start();
    h = await startHarness({
      slack: 'socket',
      script: [{ match: 'weather in Lyon', text: 'Sunny in Lyon.' }],
      channels: { voice: { base_url: openai.url } },
      env: { BIRDIE_VOICE_API_KEY: VOICE_KEY },
    });
    const { slack } = h;
    const clip = slack.addFile(
      'F1',
      'audio_message.webm',
      'audio/webm',
      new TextEncoder().encode('webm-fake'),
    );
    await slack.deliver(
      slack.message(DM, SLACK_OWNER, '', {
        subtype: 'file_share',
        files: [{ ...clip, subtype: 'slack_audio' }],
      }),
    );
    await slack.waitFor('the answer', () =>
      slack.messagesIn(DM).find((m) => m.text.includes('Sunny in Lyon')),
    );
    await slackCore(h).idle();
    expect(slack.callsOf('files.download').map((c) => c.token)).toEqual([SLACK_BOT_TOKEN]);
    const [request] = openai.requests;
    expect(openai.requests).toHaveLength(1);
    expect(request?.authorization).toBe(`Bearer ${VOICE_KEY}`);
    expect(request?.body.toString()).toContain('webm-fake');
    expect(slack.messagesIn(DM)[0]?.text).toContain('what is the weather in Lyon');
  });

  it('saves a shared file into the session workspace; refuses one over the cap without downloading it', async () => {
    h = await startHarness({
      slack: 'socket',
      script: [{ match: 'uploads/notes.txt', text: 'Got your notes.' }],
      channels: { max_file_bytes: 100 },
    });
    const { slack } = h;
    const notes = slack.addFile('F2', '../notes.txt', 'text/plain', new TextEncoder().encode('my notes'));
    const big = slack.addFile('F3', 'big.bin', 'application/octet-stream', new Uint8Array(500));
    await slack.deliver(
      slack.message(DM, SLACK_OWNER, 'read this', { subtype: 'file_share', files: [notes] }),
    );
    await slack.waitFor('the answer', () =>
      slack.messagesIn(DM).find((m) => m.text.includes('Got your notes')),
    );
    await slack.deliver(slack.message(DM, SLACK_OWNER, '', { subtype: 'file_share', files: [big] }));
    await slack.waitFor('the refusal', () => slack.messagesIn(DM).find((m) => m.text.includes('too large')));
    await slackCore(h).idle();
    const workspace = join(h.setup.workspaces.root, 'alice');
    expect(await readFile(join(workspace, 'uploads', 'notes.txt'), 'utf8')).toBe('my notes');
    expect(slack.callsOf('files.download').map((c) => c.params.id)).toEqual(['F2']);
    expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toHaveLength(1);
  });
});

describe('scheduled tasks from a Slack thread', () => {
  it('reports a task scheduled in a thread back into that thread when it runs', async () => {
    const at = new Date(Date.now() + 3000).toISOString();
    h = await startHarness({
      slack: 'socket',
      scheduler: true,
      script: [
        { match: 'remind', tool_calls: [{ name: 'schedule_task', args: { prompt: 'say tick', at } }] },
        { match: 'remind', text: 'Scheduled.' },
        { match: 'tick', text: 'Tick report.' },
      ],
    });
    const { slack } = h;
    const channel = 'C0GENERAL';
    const { mention, ts: thread } = slack.mention(channel, SLACK_OWNER, '/enable scheduler');
    await slack.deliver(mention);
    await slack.waitFor('enabled', () =>
      slack.messagesIn(channel, thread).find((m) => m.text.includes('Enabled')),
    );
    await slack.deliver(slack.message(channel, SLACK_OWNER, 'remind me in a moment', { thread_ts: thread }));
    const question = await slack.waitFor('the approval of the task', () =>
      slack.messagesIn(channel, thread).find((m) => m.buttons !== undefined),
    );
    await slack.deliver(slack.press(question, SLACK_OWNER, question.buttons?.[0]?.action_id as string));
    await slack.waitFor('scheduled', () =>
      slack.messagesIn(channel, thread).find((m) => m.text.includes('Scheduled')),
    );
    await slackCore(h).idle();
    const loop = await startUnattended(h.setup.rt, { onEvent: () => undefined, taskPollMs: 200 });
    try {
      const report = await slack.waitFor('the report', () =>
        slack.messagesIn(channel).find((m) => m.text.includes('Tick report')),
      );
      expect(report.threadTs).toBe(thread);
      expect(report.text).toMatch(/^⏰ \u200b?\*task 1/); // slackify-markdown puts zero-width spaces around bold
    } finally {
      await loop.stop(1000);
    }
  });
});

describe('file addresses in a Slack event', () => {
  it('never sends the bot token to a file address off Slack’s file host (a crafted file object)', async () => {
    // Another host on this machine, standing in for an attacker's server the file object points at.
    const seen: IncomingHttpHeaders[] = [];
    const elsewhere = createServer((req, res) => {
      seen.push(req.headers);
      res.end('stolen');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    try {
      h = await startHarness({
        slack: 'socket',
        script: [{ match: 'uploads/', text: 'Got the file.' }, { text: 'Answered.' }],
      });
      const { slack } = h;
      const base = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
      const real = slack.addFile('F9', 'notes.txt', 'text/plain', new TextEncoder().encode('x'));
      const crafted = { ...real, url_private: `${base}/a`, url_private_download: `${base}/b` };
      await slack.deliver(slack.message(DM, SLACK_OWNER, '', { subtype: 'file_share', files: [crafted] }));
      const said = await slack.waitFor('an answer', () =>
        slack.messagesIn(DM).find((m) => /Not saved|Got the file/.test(m.text)),
      );
      await slackCore(h).idle();
      expect(seen.map((headers) => headers.authorization)).not.toContain(`Bearer ${SLACK_BOT_TOKEN}`);
      expect(seen).toEqual([]);
      expect(said.text).toContain('Not saved');
      expect(await h.setup.rt.store.runs.list({ userId: 'alice' })).toHaveLength(0);
    } finally {
      elsewhere.closeAllConnections();
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    }
  });
});
