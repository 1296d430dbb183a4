import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openServeRuntime } from '@birdie/runtime/server-runtime';
import { FakeBotApi, makeTempDir } from '@birdie/test-utils';
import { type RunningChannels, startChannels } from '../src/index.js';

export const TOKEN = '123456:TEST-telegram-token-never-logged';
export const OWNER = 111;
export const STRANGER = 222;

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

export interface Harness {
  home: string;
  api: FakeBotApi;
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
  await writeFile(join(dir.path, 'script.json'), JSON.stringify(options.script));
  const api = new FakeBotApi(TOKEN);
  await api.start();
  const { telegram, ...otherChannels } = options.channels ?? {};
  await writeFile(
    join(home, 'config.json'),
    JSON.stringify({
      settings: {
        ...options.settings,
        channels: {
          telegram: { api_url: api.url, allow: { [OWNER]: 'alice' }, ...(telegram as object) },
          ...otherChannels,
        },
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
    BIRDIE_TELEGRAM_TOKEN: TOKEN,
    ...options.env,
  };
  const logs: string[] = [];
  const stderr: string[] = [];
  const harness = { home, api, logs, stderr, env } as Harness;
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
    } catch (error) {
      await harness.setup.rt.close();
      throw error;
    }
  };
  try {
    await open();
  } catch (error) {
    await api.stop();
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
