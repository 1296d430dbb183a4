import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openServeRuntime } from '@birdie/runtime/server-runtime';
import { FakeBotApi, FakeSlackApi, makeTempDir } from '@birdie/test-utils';
import { type RunningChannels, startChannels } from '../src/index.js';

export const TOKEN = '123456:TEST-telegram-token-never-logged';
export const OWNER = 111;
export const STRANGER = 222;

export const SLACK_BOT_TOKEN = 'xoxb-TEST-slack-bot-token-never-logged';
export const SLACK_APP_TOKEN = 'xapp-TEST-slack-app-token-never-logged';
export const SLACK_SIGNING_SECRET = 'slack-signing-secret-never-logged_7';
export const SLACK_OWNER = 'UOWNER1';
export const SLACK_STRANGER = 'USTRANGER';

const REPO_SKILLS = fileURLToPath(new URL('../../../skills/', import.meta.url));

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

/** A skill whose tool runs the raw shell command the model wrote, as the bundled `shell` skill's `run_bash` does. */
const RAW_SHELL = `---
name: raw-shell
description: Runs a raw shell command.
---
## Tools

### run_command
description: Run a shell command.
entrypoint: bash:{command}
schema: { type: object, properties: { command: { type: string } }, required: [command] }
`;

export interface Harness {
  home: string;
  api: FakeBotApi;
  /** The fake Slack (its Web API and events), when the harness runs Slack. */
  slack: FakeSlackApi;
  logs: string[];
  stderr: string[];
  env: NodeJS.ProcessEnv;
  running: RunningChannels;
  setup: Awaited<ReturnType<typeof openServeRuntime>>;
  /** Stops the channels and closes the runtime (the fake API and the folder stay). */
  stop(): Promise<void>;
  /** Starts channels again on the same folder and fake API (a restart). */
  restart(): Promise<void>;
  cleanup(): Promise<void>;
}

export interface HarnessOptions {
  /** The scripted model's replies. */
  script: unknown;
  /** `channels` settings over the defaults (api_url and the allow list). */
  channels?: Record<string, unknown>;
  settings?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  /** Give the session the bundled scheduler skill to enable. */
  scheduler?: boolean;
  /** Give the session a raw shell tool (`run_command`, the skill `raw-shell`). */
  rawShell?: boolean;
  /** Run the Slack channel (Socket Mode or the Events API) instead of Telegram. */
  slack?: 'socket' | 'events';
}

/** A BIRDIE_HOME with the scripted model and a shouter skill, a fake Bot API, and the channels started on them. */
export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const dir = await makeTempDir('birdie-channels-');
  const home = join(dir.path, 'home');
  const bundled = join(dir.path, 'bundled');
  await mkdir(join(home, 'skills', 'shouter'), { recursive: true });
  await mkdir(bundled, { recursive: true });
  if (options.scheduler)
    await cp(join(REPO_SKILLS, 'scheduler'), join(bundled, 'scheduler'), { recursive: true });
  await writeFile(join(home, 'skills', 'shouter', 'SKILL.md'), SHOUTER);
  if (options.rawShell) {
    await mkdir(join(home, 'skills', 'raw-shell'));
    await writeFile(join(home, 'skills', 'raw-shell', 'SKILL.md'), RAW_SHELL);
  }
  await writeFile(join(dir.path, 'script.json'), JSON.stringify(options.script));
  const api = new FakeBotApi(TOKEN);
  await api.start();
  const slack = new FakeSlackApi(SLACK_BOT_TOKEN, {
    appToken: SLACK_APP_TOKEN,
    signingSecret: SLACK_SIGNING_SECRET,
  });
  await slack.start();
  const { telegram, slack: slackSettings, ...otherChannels } = options.channels ?? {};
  const platform = options.slack
    ? {
        slack: {
          api_url: slack.apiUrl,
          mode: options.slack,
          events_port: 0,
          allow: { [SLACK_OWNER]: 'alice' },
          ...(slackSettings as object),
        },
      }
    : { telegram: { api_url: api.url, allow: { [OWNER]: 'alice' }, ...(telegram as object) } };
  await writeFile(
    join(home, 'config.json'),
    JSON.stringify({
      settings: {
        ...options.settings,
        channels: { ...platform, ...otherChannels },
      },
    }),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir.path,
    USER: 'alice',
    LANG: 'C.UTF-8',
    BIRDIE_HOME: home,
    LLM_VENDOR: 'scripted',
    LLM_SCRIPT: join(dir.path, 'script.json'),
    ...(options.slack
      ? {
          BIRDIE_SLACK_BOT_TOKEN: SLACK_BOT_TOKEN,
          BIRDIE_SLACK_SIGNING_SECRET: SLACK_SIGNING_SECRET,
          ...(options.slack === 'socket' ? { BIRDIE_SLACK_APP_TOKEN: SLACK_APP_TOKEN } : {}),
        }
      : { BIRDIE_TELEGRAM_TOKEN: TOKEN }),
    ...options.env,
  };
  const logs: string[] = [];
  const stderr: string[] = [];
  const harness = { home, api, slack, logs, stderr, env } as Harness;
  const open = async () => {
    const io = {
      env,
      cwd: dir.path,
      stderr: { write: (t: string) => stderr.push(t) },
      bundled: { skills: bundled },
    };
    harness.setup = await openServeRuntime(io, {});
    try {
      harness.running = await startChannels(harness.setup, {
        log: (line) => logs.push(line),
        editEveryMs: 150,
        taskReportMs: 200,
      });
      slack.eventsUrl = harness.running.channels.slack?.url ?? '';
    } catch (error) {
      await harness.setup.rt.close();
      throw error;
    }
  };
  try {
    await open();
  } catch (error) {
    await api.stop();
    await slack.stop();
    await dir.cleanup();
    throw error;
  }
  harness.stop = async () => {
    await harness.running.stop();
    await harness.setup.rt.close();
  };
  harness.restart = open;
  harness.cleanup = async () => {
    await api.stop();
    await slack.stop();
    await dir.cleanup();
  };
  return harness;
}

/** The Telegram channel's core, to wait until its chats are idle. */
export function telegramCore(h: Harness) {
  const channel = h.running.channels.telegram;
  if (!channel) throw new Error('no telegram channel');
  return channel.core;
}

/** The Slack channel's core, to wait until its threads are idle. */
export function slackCore(h: Harness) {
  const channel = h.running.channels.slack;
  if (!channel) throw new Error('no slack channel');
  return channel.core;
}

/**
 * Stops what a test started, whichever of it exists: the harness (its channels, runtime, fakes and folder) and any
 * other fake service (a voice API). For `afterEach`: a harness that failed to stop is still cleaned up.
 */
export async function stopStarted(
  h: Harness | undefined,
  ...services: Array<{ stop(): Promise<void> } | undefined>
): Promise<void> {
  await h?.stop().catch(() => undefined);
  await h?.cleanup();
  for (const service of services) await service?.stop();
}
