import type { Server } from 'node:http';
import { App, type Logger, LogLevel, webApi } from '@slack/bolt';
import { slackifyMarkdown } from 'slackify-markdown';
import { ChannelCore, type ChannelCoreOptions } from './channel-core.js';
import type { Button, ChatOutput, ChatPlace, IncomingFile, IncomingMessage } from './chat.js';
import { ChannelError } from './errors.js';
import { honestAddress, isDisguised, withoutUserinfo } from './honest-links.js';
import type { RunningChannel } from './telegram.js';

export interface SlackOptions {
  /** The bot token (`xoxb-…`): the Web API calls and file downloads. */
  botToken: string;
  /** Socket Mode: the app-level token (`xapp-…`, scope `connections:write`). */
  appToken?: string;
  /** Events mode: the app's signing secret; every request is checked against it. */
  signingSecret?: string;
  mode: 'socket' | 'events';
  /** The Web API's address (default Slack's own, `https://slack.com/api/`). */
  apiUrl?: string;
  eventsHost?: string;
  eventsPort?: number;
  /** Shortest time between two edits of a streamed message, ms (default 1000). */
  editEveryMs?: number;
}

/** Slack shows about 4,000 characters of a message's text well; mrkdwn conversion adds a little. */
const MAX_MARKDOWN = 3500;
/** The commands a Slack app manifest may declare as slash commands. */
const SLASH_COMMANDS = /^\/(new|skills|enable|model|cancel|help)$/;

/**
 * Markdown as Slack's mrkdwn. Every `<` that does not start a link is escaped, so text from the model can never
 * become a mention (`<!channel>`, `<@U…>`) or a link Slack would render. Then every link of the result (converted
 * from Markdown, or written by the model in Slack's own syntax inside code, which the conversion passes through)
 * whose text is another address than its target is replaced by its target (`isDisguised`): checked on the mrkdwn,
 * since the converter reads Markdown otherwise than CommonMark (the last of two reference definitions wins).
 */
export function toSlack(markdown: string): string {
  // Case-insensitive, as Slack links `<HTTPS://…>` too; a URL holds no `|`, so each `<` is read in linear time.
  return slackifyMarkdown(markdown)
    .replace(/<(?!(?:https?|mailto):[^<>\s|]*(?:\|[^<>]*)?>)/gi, '&lt;')
    .replace(/<((?:https?|mailto):[^<>\s|]*)\|([^<>]*)>/gi, (link, url: string, label: string) => {
      if (isDisguised(mrkdwnText(label), unescaped(url))) return shownAsItself(unescaped(url));
      const revealed = withoutUserinfo(unescaped(url));
      return revealed === undefined ? link : `<${mrkdwnUrl(revealed)}|${label}>`;
    });
}

/** A mrkdwn text as Slack shows it: its entities undone. */
function unescaped(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

/**
 * A mrkdwn label as Slack shows it: the formatting marks at a word's edge (`*bold*`, `_italic_`, the zero-width
 * spaces the converter puts around them) dropped, those inside a word (`my_file.md`) kept, as Slack shows them.
 */
function mrkdwnText(label: string): string {
  return unescaped(label.replace(/(^|[\s\u200b])[*_~`]+|[*_~`]+(?=[\s\u200b]|$)/g, '$1'));
}

/** A link that shows its own address (`|` and `&` escaped for mrkdwn), or the target as text when it is no URL. */
function shownAsItself(target: string): string {
  const address = honestAddress(target);
  if (address === undefined)
    return target.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  return `<${mrkdwnUrl(address)}>`;
}

/** A URL as a mrkdwn link's target. */
const mrkdwnUrl = (url: string) => url.replaceAll('|', '%7C').replaceAll('&', '&amp;');

/** Slack refuses a section block of more than 3,000 characters (`invalid_blocks`). */
const SECTION_MAX = 3000;
const FENCE = '```';

/**
 * mrkdwn cut into texts of at most `max` characters for section blocks, at line ends where it can: a code block cut in
 * two is closed at the end of one part and opened again at the start of the next, and a line longer than a part is cut
 * where no `&…;` entity is split. Nothing is left out: an approval question is shown whole.
 */
export function sectionsOf(mrkdwn: string, max = SECTION_MAX): string[] {
  const room = max - FENCE.length - 1;
  const parts: string[] = [];
  let part = '';
  let fenced = false;
  const flush = () => {
    parts.push(fenced ? `${part}\n${FENCE}` : part);
    part = fenced ? FENCE : '';
  };
  for (const line of mrkdwn.split('\n')) {
    let rest = line;
    while (true) {
      const joined = part === '' ? rest : `${part}\n${rest}`;
      if (joined.length <= room) {
        part = joined;
        break;
      }
      if (part !== '' && part !== FENCE) {
        flush();
        continue;
      }
      // One line longer than a part: cut it, before an entity it would split.
      const lead = part === '' ? '' : `${part}\n`;
      let cut = room - lead.length;
      const amp = rest.lastIndexOf('&', cut);
      if (amp > 0 && !rest.slice(amp, cut).includes(';') && cut - amp < 8) cut = amp;
      part = lead + rest.slice(0, cut);
      rest = rest.slice(cut);
      flush();
    }
    if (line.startsWith(FENCE)) fenced = !fenced;
  }
  if (part !== '' && part !== FENCE) parts.push(part);
  return parts;
}

function blocksOf(mrkdwn: string, buttons: Button[][]) {
  return [
    ...sectionsOf(mrkdwn).map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })),
    ...buttons.map((row) => ({
      type: 'actions',
      elements: row.map((b) => ({
        type: 'button',
        text: { type: 'plain_text', text: b.text },
        action_id: b.data,
        value: b.data,
      })),
    })),
  ];
}

function slackOutput(client: webApi.WebClient, editEveryMs: number): ChatOutput {
  return {
    maxChars: MAX_MARKDOWN,
    editEveryMs,
    async send(place, markdown, buttons) {
      const text = toSlack(markdown);
      const sent = await client.chat.postMessage({
        channel: place.chatId,
        text,
        ...(place.threadId ? { thread_ts: place.threadId } : {}),
        ...(buttons ? { blocks: blocksOf(text, buttons) } : {}),
      });
      return String(sent.ts);
    },
    async edit(place, messageId, markdown, buttons) {
      const text = toSlack(markdown);
      // Blocks always given: an edit without buttons removes the old ones (a decided approval).
      await client.chat.update({
        channel: place.chatId,
        ts: messageId,
        text,
        blocks: buttons ? blocksOf(text, buttons) : [],
      });
    },
  };
}

/** Bolt's and the Web API's own logging, into the channel's log: warnings and errors only, never a payload. */
function boltLogger(log: (line: string) => void): Logger {
  let level = LogLevel.WARN;
  const line = (kind: string, parts: unknown[]) =>
    log(`slack ${kind}: ${parts.map((p) => (p instanceof Error ? p.message : String(p))).join(' ')}`);
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (...parts) => line('warning', parts),
    error: (...parts) => line('error', parts),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

interface SlackFile {
  id?: string;
  name?: string | null;
  mimetype?: string;
  size?: number;
  subtype?: string;
  url_private?: string;
  url_private_download?: string;
}

/** Where Slack serves shared files from; a file's private URL anywhere else never gets the bot token. */
const SLACK_FILE_HOST = 'https://files.slack.com';

/**
 * The origins a file's private URL may have: Slack's file host, and the configured Web API's origin (a test's fake
 * Slack serves files itself).
 */
function fileOrigins(apiUrl: string | undefined): string[] {
  return apiUrl ? [SLACK_FILE_HOST, new URL(apiUrl).origin] : [SLACK_FILE_HOST];
}

/**
 * A shared file, downloaded from its private URL with the bot token (never put in a message or a log line), and only
 * from one of `origins`: the URL comes in the event's payload, and a token sent elsewhere is a leaked token. (A
 * redirect to another origin drops the header: fetch does so.)
 */
function fileOf(
  file: SlackFile,
  botToken: string,
  origins: readonly string[],
): IncomingFile & { mime: string } {
  return {
    name: file.name ?? file.id ?? 'file',
    mime: file.mimetype ?? 'application/octet-stream',
    ...(file.size !== undefined ? { size: file.size } : {}),
    async download(signal) {
      const url = file.url_private_download ?? file.url_private;
      if (!url) throw new ChannelError('platform-failed', 'Slack gave no address for the file');
      if (!origins.includes(originOf(url)))
        throw new ChannelError('foreign-file-address', "its address is not on Slack's file host");
      const response = await fetch(url, {
        headers: { authorization: `Bearer ${botToken}` },
        signal: AbortSignal.any([signal, AbortSignal.timeout(60_000)]),
      });
      if (!response.ok)
        throw new ChannelError('platform-failed', `downloading a file failed: ${response.status}`);
      return response;
    },
  };
}

function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : '';
}

interface SlackMessageEvent {
  channel: string;
  user?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  files?: SlackFile[];
}

/** An event's message as the core sees it (the bot's mention taken out); undefined for what the core does not handle. */
function incoming(
  event: SlackMessageEvent,
  place: ChatPlace,
  group: boolean,
  botUser: string,
  download: { botToken: string; origins: readonly string[] },
): IncomingMessage | undefined {
  if (!event.user) return undefined;
  const text = (event.text ?? '').replaceAll(`<@${botUser}>`, '').trim();
  const shared = (event.files ?? []).map((f) => ({
    slack: f,
    file: fileOf(f, download.botToken, download.origins),
  }));
  // A recorded audio clip (or any audio file) is a voice message; the first one is transcribed.
  const voice = shared.find((s) => s.slack.subtype === 'slack_audio' || s.file.mime.startsWith('audio/'));
  const files = shared.filter((s) => s !== voice).map((s) => s.file);
  if (!voice && files.length === 0 && text === '') return undefined;
  return {
    place,
    userId: event.user,
    text,
    group,
    mentioned: true,
    ...(voice ? { voice: voice.file } : {}),
    ...(files.length > 0 ? { files } : {}),
  };
}

/**
 * What identifies one delivery of a message to this app: the envelope's `event_id` (the same on every redelivery of
 * the event) and the message's channel + `ts` (the same in its `app_mention` and its `message` event), both under the
 * envelope's `api_app_id`, so that two birdie Slack apps sharing one store (a Slack Connect channel both are in) each
 * handle the post.
 */
function deliveryKeys(
  body: { event_id?: unknown; api_app_id?: unknown },
  event: SlackMessageEvent,
): string[] {
  const app = `slack:${typeof body.api_app_id === 'string' ? body.api_app_id : '-'}`;
  return [
    ...(typeof body.event_id === 'string' ? [`${app}:event:${body.event_id}`] : []),
    `${app}:message:${event.channel}:${event.ts}`,
  ];
}

/**
 * Starts the Slack channel on Bolt: Socket Mode with the app token, or the Events API over HTTP, where Bolt refuses
 * (401) any request whose `v0` signature does not match the signing secret or whose timestamp is over five minutes
 * old. Events mode without a signing secret, and Socket Mode without an app token, refuse to start.
 *
 * A Slack thread is a session (`slack_<channel>_<thread_ts>`); a direct message outside a thread is the DM's own
 * session (`slack_<channel>`). In channels the bot answers a mention (in a thread under it) and, after that, every
 * message of that thread.
 */
export async function startSlack(
  core: Omit<ChannelCoreOptions, 'output' | 'platform'>,
  options: SlackOptions,
): Promise<RunningChannel> {
  if (options.mode === 'events' && !options.signingSecret)
    throw new ChannelError(
      'channel-config',
      'Slack events mode needs the signing secret (channels.slack.signing_secret or BIRDIE_SLACK_SIGNING_SECRET): without it anybody could post events to it',
    );
  if (options.mode === 'socket' && !options.appToken)
    throw new ChannelError(
      'channel-config',
      'Slack Socket Mode needs the app-level token (channels.slack.app_token or BIRDIE_SLACK_APP_TOKEN), or set channels.slack.mode to events',
    );
  const logger = boltLogger(core.log);
  const clientOptions = {
    ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
    logger,
    // The Web API's default retries a failing call for about half an hour.
    retryConfig: { retries: 3, factor: 2 },
  };
  const apiShown = options.apiUrl ?? 'https://slack.com/api/';
  let auth: { user_id?: string; bot_id?: string; team?: string };
  try {
    const probe = new webApi.WebClient(options.botToken, clientOptions);
    auth = await Promise.race([
      probe.auth.test(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('no answer in 30 s')), 30_000).unref(),
      ),
    ]);
  } catch (error) {
    throw new ChannelError(
      'platform-failed',
      `Slack refused the bot token or cannot be reached (${apiShown})`,
      { cause: error },
    );
  }
  const botUser = auth.user_id ?? '';
  const download = { botToken: options.botToken, origins: fileOrigins(options.apiUrl) };
  const app = new App({
    token: options.botToken,
    botUserId: botUser,
    ...(auth.bot_id ? { botId: auth.bot_id } : {}),
    logger,
    clientOptions,
    ...(options.mode === 'socket'
      ? { socketMode: true, appToken: options.appToken as string }
      : { signingSecret: options.signingSecret as string }),
  });
  const channel = new ChannelCore({
    ...core,
    platform: 'slack',
    output: slackOutput(app.client, options.editEveryMs ?? 1000),
  });
  app.error(async (error) => core.log(`slack: ${error.message}`));

  app.event('message', async ({ event, body, context }) => {
    // Slack retries an event it thinks was not acknowledged in time; Bolt acknowledged it at once.
    if (context.retryNum) return;
    const message = event as SlackMessageEvent & { subtype?: string; bot_id?: string; channel_type?: string };
    if ((message.subtype && message.subtype !== 'file_share') || message.bot_id) return;
    const dm = message.channel_type === 'im';
    const place: ChatPlace = {
      chatId: message.channel,
      ...(message.thread_ts ? { threadId: message.thread_ts } : {}),
    };
    // In a channel: a new mention is answered through `app_mention`; other messages only in a thread the bot is in
    // (a mention there comes as both events: the first one taken wins, by the message's delivery key).
    if (!dm && (!message.thread_ts || !channel.knows(place))) return;
    const parsed = incoming(message, place, !dm, botUser, download);
    if (parsed) await channel.onMessage({ ...parsed, deliveryKeys: deliveryKeys(body, message) });
  });

  app.event('app_mention', async ({ event, body, context }) => {
    if (context.retryNum) return;
    const mention = event as SlackMessageEvent;
    const place: ChatPlace = { chatId: mention.channel, threadId: mention.thread_ts ?? mention.ts };
    const parsed = incoming(mention, place, true, botUser, download);
    if (parsed) await channel.onMessage({ ...parsed, deliveryKeys: deliveryKeys(body, mention) });
  });

  app.action(/^ap:/, async ({ ack, body, client }) => {
    await ack();
    if (body.type !== 'block_actions') return;
    const pressed = body.actions[0];
    const chatId = body.channel?.id ?? body.container?.channel_id;
    const messageTs = body.message?.ts ?? body.container?.message_ts;
    if (pressed?.type !== 'button' || !chatId || !messageTs) return;
    const threadTs = body.message?.thread_ts as string | undefined;
    const place: ChatPlace = { chatId, ...(threadTs ? { threadId: threadTs } : {}) };
    await channel.onPress({
      place,
      userId: body.user.id,
      data: pressed.value ?? pressed.action_id,
      messageId: String(messageTs),
      answer: async (text) => {
        await client.chat.postEphemeral({
          channel: chatId,
          user: body.user.id,
          text,
          ...(threadTs ? { thread_ts: threadTs } : {}),
        });
      },
    });
  });

  app.command(SLASH_COMMANDS, async ({ ack, command }) => {
    // A slash command carries no thread: in a DM it is the DM's session; in a channel it points at the thread.
    if (!command.channel_id.startsWith('D')) {
      await ack({
        response_type: 'ephemeral',
        text: `In a channel, write it in the thread of your session: @birdie ${command.command} ${command.text}`.trim(),
      });
      return;
    }
    await ack();
    await channel.onMessage({
      place: { chatId: command.channel_id },
      userId: command.user_id,
      text: `${command.command} ${command.text}`.trim(),
      group: false,
      mentioned: true,
    });
  });

  let url: string | undefined;
  try {
    if (options.mode === 'socket') await app.start();
    else {
      const host = options.eventsHost ?? '127.0.0.1';
      const server = (await app.start({ port: options.eventsPort ?? 3000, host })) as Server;
      const address = server.address();
      url = typeof address === 'object' && address ? `http://${host}:${address.port}/slack/events` : '';
    }
  } catch (error) {
    await app.stop().catch(() => undefined);
    throw new ChannelError('platform-failed', `Slack ${options.mode} mode could not start`, {
      cause: error,
    });
  }
  core.log(
    `slack: bot ${botUser} of ${auth.team ?? 'the workspace'} (${options.mode === 'socket' ? 'Socket Mode' : `events on ${url}`})`,
  );
  return {
    core: channel,
    ...(url ? { url } : {}),
    async stop() {
      await app.stop().catch(() => undefined);
      channel.cancelAll();
      await channel.idle();
    },
  };
}
