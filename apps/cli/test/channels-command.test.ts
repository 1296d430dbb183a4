import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FakeBotApi, FakeSlackApi } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { type BirdieProcess, startBirdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Issue 37: `birdie channels` (and `birdie serve --channels`) against a local fake Telegram Bot API.

const TOKEN = '4242:cli-test-token-never-logged';
const OWNER = 7;

const SHOUTER = `---
name: shouter
description: Shouts text back in capital letters.
---
## Tools
### shout
description: Print the text in capital letters.
entrypoint: bash:printf '%s\\n' {text} | tr a-z A-Z
schema: { type: object, properties: { text: { type: string } }, required: [text] }
`;

let box: Sandbox | undefined;
let api: FakeBotApi | undefined;
let proc: BirdieProcess | undefined;
let slack: FakeSlackApi | undefined;
afterEach(async () => {
  proc?.kill('SIGKILL');
  await proc?.exited.catch(() => undefined);
  await api?.stop();
  await slack?.stop();
  slack = undefined;
  await box?.cleanup();
  proc = box = api = undefined;
});

async function setUp(script: unknown, settings: Record<string, unknown> = {}) {
  api = new FakeBotApi(TOKEN);
  await api.start();
  box = await sandbox({ LLM_VENDOR: 'scripted', BIRDIE_TELEGRAM_TOKEN: TOKEN });
  const scriptFile = join(box.dir.path, 'script.json');
  await writeFile(scriptFile, JSON.stringify(script));
  box.env.LLM_SCRIPT = scriptFile;
  await mkdir(join(box.home, 'skills', 'shouter'), { recursive: true });
  await writeFile(join(box.home, 'skills', 'shouter', 'SKILL.md'), SHOUTER);
  await writeFile(
    join(box.home, 'config.json'),
    JSON.stringify({
      settings: { ...settings, channels: { telegram: { api_url: api.url, allow: { [OWNER]: 'alice' } } } },
    }),
  );
  return { api, box };
}

const start = (args: string[], b: Sandbox) =>
  startBirdie(args, { env: b.env, cwd: b.cwd, timeoutMs: 90_000 });

describe('birdie channels', () => {
  it('answers a Telegram chat, stops on SIGTERM, and never logs the token', async () => {
    const { api, box } = await setUp([{ text: 'Hello from the CLI.' }]);
    proc = start(['channels'], box);
    await proc.waitFor('stdout', /channels: telegram/, 60_000);
    api.push(api.message(OWNER, OWNER, 'hello'));
    await api.waitFor('the answer', () =>
      api?.messagesIn(OWNER).find((m) => m.text.includes('Hello from the CLI')),
    );
    proc.kill('SIGTERM');
    const done = await proc.exited;
    expect(done.code).toBe(0);
    expect(done.stderr).toContain('telegram: bot @birdie_test_bot (polling)');
    expect(done.stdout + done.stderr).not.toContain(TOKEN);
  }, 180_000);

  it('refuses to start without a channel configured (usage error)', async () => {
    const { box } = await setUp([]);
    delete box.env.BIRDIE_TELEGRAM_TOKEN;
    await writeFile(join(box.home, 'config.json'), '{}');
    proc = start(['channels'], box);
    const done = await proc.exited;
    expect(done.code).toBe(2);
    expect(done.stderr).toContain('no channel is configured');
  }, 180_000);

  it('a pending approval survives the process being killed; the button works after the restart', async () => {
    const { api, box } = await setUp(
      [
        { match: 'shout', tool_calls: [{ name: 'shout', args: { text: 'hi' } }] },
        { match: 'shout', text: 'Shouted.' },
      ],
      { approval: 'always' },
    );
    proc = start(['channels'], box);
    await proc.waitFor('stdout', /channels: telegram/, 60_000);
    api.push(api.message(OWNER, OWNER, 'shout please'));
    const question = await api.waitFor('the approval', () => api?.messagesIn(OWNER).find((m) => m.buttons));
    proc.kill('SIGKILL');
    await proc.exited;
    // The scripted model keeps its place in the script in memory only: the new process's model goes on from here.
    await writeFile(box.env.LLM_SCRIPT as string, JSON.stringify([{ text: 'Shouted.' }]));
    proc = start(['channels'], box);
    await proc.waitFor('stdout', /channels: telegram/, 60_000);
    api.push(api.press(question, OWNER, question.buttons?.[0]?.[0]?.callback_data as string));
    await api
      .waitFor('the answer', () => api?.messagesIn(OWNER).find((m) => m.text.includes('Shouted')))
      .catch((error) => {
        throw new Error(
          `${error.message}; stderr: ${proc?.stderr()}; calls: ${JSON.stringify(api?.calls.filter((c) => c.method !== 'getUpdates'))}`,
        );
      });
  }, 180_000);

  it('killed in the middle of a streamed answer, it comes back to the same session', async () => {
    const slow = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    const { api, box } = await setUp({ replies: [{ text: slow, token_delay_ms: 100 }] });
    proc = start(['channels'], box);
    await proc.waitFor('stdout', /channels: telegram/, 60_000);
    api.push(api.message(OWNER, OWNER, 'talk slowly'));
    await api.waitFor('the answer streaming', () => api?.messagesIn(OWNER).length === 1);
    const book = join(box.home, 'channels.json');
    const before = JSON.parse(await readFile(book, 'utf8')).chats.telegram_7.sessionId;
    proc.kill('SIGKILL');
    await proc.exited;
    expect(api.messagesIn(OWNER)[0]?.text).not.toContain('word79');
    await writeFile(box.env.LLM_SCRIPT as string, JSON.stringify([{ text: 'Back again.' }]));
    proc = start(['channels'], box);
    await proc.waitFor('stdout', /channels: telegram/, 60_000);
    api.push(api.message(OWNER, OWNER, 'are you there?'));
    await api.waitFor('the answer after the restart', () =>
      api?.messagesIn(OWNER).find((m) => m.text.includes('Back again')),
    );
    expect(JSON.parse(await readFile(book, 'utf8')).chats.telegram_7.sessionId).toBe(before);
  }, 180_000);

  it('runs inside birdie serve with --channels, on the same store', async () => {
    const { api, box } = await setUp([{ text: 'Served and chatted.' }]);
    proc = start(['serve', '--port', '0', '--channels'], box);
    const [, url] = (await proc.waitFor('stdout', /listening on (\S+)/, 60_000)) as RegExpMatchArray;
    api.push(api.message(OWNER, OWNER, 'hello'));
    await api.waitFor('the answer', () =>
      api?.messagesIn(OWNER).find((m) => m.text.includes('Served and chatted')),
    );
    // The chat's session is alice's, as the HTTP API sees it.
    const tokens = startBirdie(['tokens', 'create', '--user', 'alice'], { env: box.env, cwd: box.cwd });
    const token = (await tokens.exited).stdout.match(/bdt_\S+/)?.[0];
    const response = await fetch(`${url}/v1/sessions`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await response.json()) as { sessions: Array<{ id: string }> };
    expect(body.sessions).toHaveLength(1);
    proc.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);
  }, 180_000);

  it('with only Slack configured, connects over Socket Mode from the built CLI and answers a DM', async () => {
    const { box } = await setUp([{ text: 'Hello from Slack.' }]);
    const botToken = 'xoxb-cli-slack-token-never-logged';
    const appToken = 'xapp-cli-slack-app-token-never-logged';
    slack = new FakeSlackApi(botToken, { appToken });
    await slack.start();
    delete box.env.BIRDIE_TELEGRAM_TOKEN;
    Object.assign(box.env, { BIRDIE_SLACK_BOT_TOKEN: botToken, BIRDIE_SLACK_APP_TOKEN: appToken });
    await writeFile(
      join(box.home, 'config.json'),
      JSON.stringify({
        settings: { channels: { slack: { api_url: slack.apiUrl, allow: { U7: 'alice' } } } },
      }),
    );
    proc = start(['channels'], box);
    await proc.waitFor('stdout', /channels: slack/, 60_000);
    const fake = slack;
    expect(fake.socketConnections).toBe(1);
    await fake.deliver(fake.message('D7', 'U7', 'hello'));
    await fake.waitFor('the answer', () =>
      fake.messagesIn('D7').find((m) => m.text.includes('Hello from Slack')),
    );
    proc.kill('SIGTERM');
    const done = await proc.exited;
    expect(done.code).toBe(0);
    expect(done.stderr).toContain('Socket Mode');
    for (const secret of [botToken, appToken]) expect(done.stdout + done.stderr).not.toContain(secret);
  }, 180_000);
});
