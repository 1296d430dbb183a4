import { join } from 'node:path';
import { birdieHome } from '@birdie/runtime/paths';
import type { ChannelsSettings } from '@birdie/runtime/settings';
import type { ChannelSetup } from './channel-core.js';
import { ChatBook } from './chat-book.js';
import { ChannelError } from './errors.js';
import { type SlackOptions, startSlack } from './slack.js';
import { TaskReports } from './task-reports.js';
import { type RunningChannel, startTelegram, type TelegramOptions } from './telegram.js';
import { transcriberOf } from './voice.js';

export interface StartChannelsOptions {
  /** One line per event worth logging (never a secret: each line is also scrubbed of the configured ones). */
  log(line: string): void;
  /** How often to look for finished scheduled tasks to report, ms (default 15 s). */
  taskReportMs?: number;
  /** The shortest time between two edits of a streamed message, ms (default 1000, both platforms). */
  editEveryMs?: number;
}

export interface RunningChannels {
  readonly channels: Readonly<Record<string, RunningChannel>>;
  readonly reports: readonly TaskReports[];
  stop(): Promise<void>;
}

const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** The secrets of the settings and the environment: the config file's, else `BIRDIE_*` variables. */
export function channelSecrets(settings: ChannelsSettings, env: NodeJS.ProcessEnv) {
  return {
    telegramToken: env.BIRDIE_TELEGRAM_TOKEN || settings.telegram?.token,
    telegramWebhookSecret: env.BIRDIE_TELEGRAM_WEBHOOK_SECRET || settings.telegram?.webhook_secret,
    slackBotToken: env.BIRDIE_SLACK_BOT_TOKEN || settings.slack?.bot_token,
    slackAppToken: env.BIRDIE_SLACK_APP_TOKEN || settings.slack?.app_token,
    slackSigningSecret: env.BIRDIE_SLACK_SIGNING_SECRET || settings.slack?.signing_secret,
    voiceKey: env.BIRDIE_VOICE_API_KEY,
  };
}

/** A log sink that never writes one of these values. */
export function scrubbed(log: (line: string) => void, secrets: readonly (string | undefined)[]) {
  const known = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 6);
  return (line: string) => log(known.reduce((text, secret) => text.replaceAll(secret, '[secret]'), line));
}

/**
 * Starts every configured channel (`channels.telegram` with a token, …) on a runtime opened as `birdie serve` opens
 * it, with the chat book beside the store. `no-channels` when none is configured.
 */
export async function startChannels(
  setup: ChannelSetup,
  options: StartChannelsOptions,
): Promise<RunningChannels> {
  const { rt } = setup;
  const settings = rt.config.settings.channels;
  const secrets = channelSecrets(settings, rt.io.env);
  const log = scrubbed(options.log, [...Object.values(secrets), rt.provider.config.api_key]);
  const book = await ChatBook.open(join(birdieHome(rt.io.env), 'channels.json'));
  const base = {
    setup,
    book,
    log,
    maxFileBytes: settings.max_file_bytes ?? DEFAULT_MAX_FILE_BYTES,
    ...optional('transcriber', transcriberOf(settings, rt.provider.config, rt.io.env)),
  };
  const channels: Record<string, RunningChannel> = {};
  const reports: TaskReports[] = [];
  const stopAll = async () => {
    for (const report of reports) await report.stop();
    for (const channel of Object.values(channels)) await channel.stop();
    // A handler that ended as its channel stopped may have asked for a write: nothing writes the book after stop.
    await book.settled();
  };
  try {
    const telegram = settings.telegram;
    if (secrets.telegramToken) {
      const tg: TelegramOptions = {
        token: secrets.telegramToken,
        mode: telegram?.mode ?? 'polling',
        ...optional('apiUrl', telegram?.api_url),
        ...optional('webhookSecret', secrets.telegramWebhookSecret),
        ...optional('webhookUrl', telegram?.webhook_url),
        ...optional('webhookHost', telegram?.webhook_host),
        ...optional('webhookPort', telegram?.webhook_port),
        ...optional('editEveryMs', options.editEveryMs),
      };
      channels.telegram = await startTelegram({ ...base, allow: telegram?.allow ?? {} }, tg);
    } else if (telegram?.mode || telegram?.allow) {
      throw new ChannelError(
        'channel-config',
        'channels.telegram is set up without a token: set channels.telegram.token or BIRDIE_TELEGRAM_TOKEN',
      );
    }
    const slack = settings.slack;
    if (secrets.slackBotToken) {
      const sl: SlackOptions = {
        botToken: secrets.slackBotToken,
        mode: slack?.mode ?? (secrets.slackAppToken ? 'socket' : 'events'),
        ...optional('appToken', secrets.slackAppToken),
        ...optional('signingSecret', secrets.slackSigningSecret),
        ...optional('apiUrl', slack?.api_url),
        ...optional('eventsHost', slack?.events_host),
        ...optional('eventsPort', slack?.events_port),
        ...optional('editEveryMs', options.editEveryMs),
      };
      channels.slack = await startSlack({ ...base, allow: slack?.allow ?? {} }, sl);
    } else if (slack?.mode || slack?.allow) {
      throw new ChannelError(
        'channel-config',
        'channels.slack is set up without a bot token: set channels.slack.bot_token or BIRDIE_SLACK_BOT_TOKEN',
      );
    }
    if (Object.keys(channels).length === 0)
      throw new ChannelError(
        'no-channels',
        'no channel is configured: set channels.telegram.token (or BIRDIE_TELEGRAM_TOKEN), or channels.slack.bot_token (or BIRDIE_SLACK_BOT_TOKEN)',
      );
    for (const channel of Object.values(channels)) {
      const report = new TaskReports(channel.core, options.taskReportMs ?? 15_000);
      report.start();
      reports.push(report);
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  return { channels, reports, stop: stopAll };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
