import { createServer, type Server } from 'node:http';
import { Bot, type Context, GrammyError, webhookCallback } from 'grammy';
import type { InlineKeyboardMarkup, Message } from 'grammy/types';
import telegramify from 'telegramify-markdown';
import { ChannelCore, type ChannelCoreOptions } from './channel-core.js';
import type { Button, ChatOutput, ChatPlace, IncomingFile, IncomingMessage } from './chat.js';
import { ChannelError } from './errors.js';
import { honestAddress, isDisguised, withoutUserinfo } from './honest-links.js';
import { relativeLinksAsText } from './relative-links.js';

export interface TelegramOptions {
  token: string;
  /** The Bot API's address; default Telegram's own. */
  apiUrl?: string;
  mode: 'polling' | 'webhook';
  /** Required for `webhook`: Telegram sends it in `X-Telegram-Bot-Api-Secret-Token` on every call. */
  webhookSecret?: string;
  /** The public address to register with `setWebhook` at start (omit when it is registered by hand). */
  webhookUrl?: string;
  webhookHost?: string;
  webhookPort?: number;
  /** Shortest time between two edits of a streamed message, ms (default 1000: Telegram's per-chat limit). */
  editEveryMs?: number;
}

export interface RunningChannel {
  readonly core: ChannelCore;
  /** The webhook's listening address (`webhook` mode). */
  readonly url?: string;
  stop(): Promise<void>;
}

/** Telegram's limit is 4096 characters after conversion; MarkdownV2 escapes take some of it. */
const MAX_MARKDOWN = 3500;
const DEFAULT_API = 'https://api.telegram.org';

/**
 * Markdown as Telegram's MarkdownV2 (what it cannot show is escaped, never dropped). Every link of the result whose
 * text is another address than its target is replaced by its target (`isDisguised`): checked on the MarkdownV2, as
 * the user will see it, since the converter reads Markdown otherwise than CommonMark (the last of two reference
 * definitions wins, `[^x]` is a reference, not a footnote). A link Telegram cannot open (a relative target) is its
 * text (`relativeLinksAsText`).
 */
export function toTelegram(markdown: string): string {
  return telegramify(relativeLinksAsText(markdown), 'escape').replace(
    MARKDOWN_V2_TOKEN,
    (token, label: string | undefined, url: string | undefined) => {
      if (token === '](') return '\\]\\('; // a link this reading cannot check: not a link (see the token)
      if (label === undefined || url === undefined) return token; // an escape or code: no link in it
      const target = url.replace(/\\([\s\S])/g, '$1');
      if (isDisguised(asTelegramShows(markdownV2Text(label)), target)) return shownAsItself(target);
      const revealed = withoutUserinfo(target);
      return revealed === undefined ? token : `[${label}](${escapeMarkdownV2Url(revealed)})`;
    },
  );
}

/**
 * What a MarkdownV2 text is made of, left to right: an escaped character, a code block, a code span (inside which
 * `[…](…)` is text), or a link `[label](url)` (groups 1 and 2, as escaped; the label may hold code spans, in which
 * the converter leaves `]` unescaped). Fails closed: a `](` outside these (a label this reading does not know) is
 * its own token, escaped, so Telegram shows no unchecked link. Linear by construction: neither label nor URL holds
 * an unescaped `[` (the converter escapes it in text and percent-encodes it in URLs), so a link tried at one `[`
 * reads no further than the next; every repetition's alternatives start with different characters; and a code
 * span or block ends at the first closing backticks.
 */
const MARKDOWN_V2_TOKEN =
  /\\[\s\S]|```(?:\\[\s\S]|[^\\])*?```|`(?:\\[\s\S]|[^`\\])*`|\[((?:\\[\s\S]|`(?:\\[\s\S]|[^`\\])*`|[^\]\\`[])*)\]\(((?:\\[\s\S]|[^)\\[])*)\)|\]\(/g;

/** A Telegram user or channel name (`@bankofficial`) names its address `https://t.me/bankofficial`. */
function asTelegramShows(text: string): string {
  return text.replace(/(^|\s)@([a-z]\w{3,31})(?=$|[^\w@.]|\.(?!\w))/gi, '$1https://t.me/$2');
}

/** A MarkdownV2 label as Telegram shows it: escapes undone, formatting marks (`*`, `_`, `~`, `||`, `` ` ``) dropped. */
function markdownV2Text(label: string): string {
  return label.replace(/\\([\s\S])|[*_~|`]/g, (_, escaped?: string) => escaped ?? '');
}

/** A link that shows its own address, or the target as text when it is no URL. */
function shownAsItself(target: string): string {
  const address = honestAddress(target);
  if (address === undefined) return escapeMarkdownV2(target);
  return `[${escapeMarkdownV2(address)}](${escapeMarkdownV2Url(address)})`;
}

/** A URL as a MarkdownV2 link's target. */
const escapeMarkdownV2Url = (url: string) => url.replace(/[)\\]/g, '\\$&');

/** Text that MarkdownV2 shows as it is. */
function escapeMarkdownV2(text: string): string {
  return text.replace(/[_*[\]()~`>#+\-=|{}.!\\]/g, '\\$&');
}

function keyboard(buttons: Button[][] | undefined): { reply_markup?: InlineKeyboardMarkup } {
  if (!buttons) return {};
  return {
    reply_markup: {
      inline_keyboard: buttons.map((row) => row.map((b) => ({ text: b.text, callback_data: b.data }))),
    },
  };
}

const unparsable = (error: unknown) =>
  error instanceof GrammyError && error.error_code === 400 && /parse entities/i.test(error.description);

function telegramOutput(bot: Bot, editEveryMs: number): ChatOutput {
  return {
    maxChars: MAX_MARKDOWN,
    editEveryMs,
    async send(place, markdown, buttons) {
      try {
        const sent = await bot.api.sendMessage(place.chatId, toTelegram(markdown), {
          parse_mode: 'MarkdownV2',
          ...keyboard(buttons),
        });
        return String(sent.message_id);
      } catch (error) {
        // A conversion Telegram refuses: the text as it is, unformatted, rather than nothing.
        if (!unparsable(error)) throw error;
        const sent = await bot.api.sendMessage(place.chatId, markdown, keyboard(buttons));
        return String(sent.message_id);
      }
    },
    async edit(place, messageId, markdown, buttons) {
      try {
        await bot.api.editMessageText(place.chatId, Number(messageId), toTelegram(markdown), {
          parse_mode: 'MarkdownV2',
          ...keyboard(buttons),
        });
      } catch (error) {
        if (error instanceof GrammyError && /not modified/i.test(error.description)) return;
        if (!unparsable(error)) throw error;
        await bot.api.editMessageText(place.chatId, Number(messageId), markdown, keyboard(buttons));
      }
    },
  };
}

function fileOf(
  bot: Bot,
  apiRoot: string,
  token: string,
  fileId: string,
  name: string,
  size?: number,
): IncomingFile {
  return {
    name,
    ...(size !== undefined ? { size } : {}),
    async download(signal) {
      const file = await bot.api.getFile(fileId);
      if (!file.file_path) throw new ChannelError('platform-failed', 'Telegram gave no path for the file');
      const response = await fetch(`${apiRoot}/file/bot${token}/${file.file_path}`, {
        signal: AbortSignal.any([signal, AbortSignal.timeout(60_000)]),
      });
      // The URL holds the token: never put it in the message.
      if (!response.ok)
        throw new ChannelError('platform-failed', `downloading a file failed: ${response.status}`);
      return response;
    },
  };
}

/** An update's message as the core sees it; undefined for what the core does not handle. */
function incoming(bot: Bot, apiRoot: string, token: string, message: Message): IncomingMessage | undefined {
  if (!message.from) return undefined;
  const me = bot.botInfo;
  const group = message.chat.type !== 'private';
  let text = message.text ?? message.caption ?? '';
  const mention = `@${me.username}`;
  const mentioned =
    !group ||
    text.includes(mention) ||
    message.reply_to_message?.from?.id === me.id ||
    /^\/\w+@/.test(text) === true;
  if (group) text = text.replaceAll(mention, '').trim();
  const voice = message.voice ?? message.audio;
  const files: IncomingFile[] = [];
  if (message.document)
    files.push(
      fileOf(
        bot,
        apiRoot,
        token,
        message.document.file_id,
        message.document.file_name ?? 'document',
        message.document.file_size,
      ),
    );
  const photo = message.photo?.at(-1);
  if (photo)
    files.push(
      fileOf(bot, apiRoot, token, photo.file_id, `photo-${message.message_id}.jpg`, photo.file_size),
    );
  if (!voice && files.length === 0 && text === '') return undefined;
  return {
    place: { chatId: String(message.chat.id) },
    userId: String(message.from.id),
    text,
    group,
    mentioned,
    ...(voice
      ? {
          voice: {
            ...fileOf(bot, apiRoot, token, voice.file_id, 'voice.ogg', voice.file_size),
            mime: voice.mime_type ?? 'audio/ogg',
          },
        }
      : {}),
    ...(files.length > 0 ? { files } : {}),
  };
}

/**
 * Starts the Telegram channel: grammy's long polling, or a webhook server that refuses any call without the
 * configured `secret_token`. A webhook without a secret refuses to start.
 */
export async function startTelegram(
  core: Omit<ChannelCoreOptions, 'output' | 'platform'>,
  options: TelegramOptions,
): Promise<RunningChannel> {
  if (options.mode === 'webhook' && !options.webhookSecret)
    throw new ChannelError(
      'channel-config',
      'the Telegram webhook needs a secret (channels.telegram.webhook_secret or BIRDIE_TELEGRAM_WEBHOOK_SECRET): without one anybody could post updates to it',
    );
  const apiRoot = (options.apiUrl ?? DEFAULT_API).replace(/\/+$/, '');
  // Node's own fetch, not grammy's node-fetch default (which fails once bundled into the CLI).
  const bot = new Bot(options.token, { client: { apiRoot, fetch: globalThis.fetch } });
  const channel = new ChannelCore({
    ...core,
    platform: 'telegram',
    output: telegramOutput(bot, options.editEveryMs ?? 1000),
  });
  bot.catch((error) => core.log(`telegram: ${error.message}`));
  bot.on('message', async (ctx: Context) => {
    const message = ctx.message && incoming(bot, apiRoot, options.token, ctx.message);
    // Telegram sends an update again when its webhook call or getUpdates answer was lost: its id is the key.
    if (message)
      await channel.onMessage({
        ...message,
        deliveryKeys: [`telegram:${bot.botInfo.id}:update:${ctx.update.update_id}`],
      });
  });
  bot.on('callback_query:data', async (ctx) => {
    const chat = ctx.callbackQuery.message?.chat;
    if (!chat || !ctx.callbackQuery.message) return void (await ctx.answerCallbackQuery());
    const place: ChatPlace = { chatId: String(chat.id) };
    await channel.onPress({
      place,
      userId: String(ctx.from.id),
      data: ctx.callbackQuery.data,
      messageId: String(ctx.callbackQuery.message.message_id),
      answer: async (text) => {
        await ctx.answerCallbackQuery({ text });
      },
    });
  });
  try {
    // grammy retries network failures for ever: a wrong address or a dead network fails the start instead.
    await Promise.race([
      bot.init(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no answer in 30 s')), 30_000).unref()),
    ]);
  } catch (error) {
    throw new ChannelError(
      'platform-failed',
      `Telegram refused the bot token or cannot be reached (${apiRoot})`,
      {
        cause: error,
      },
    );
  }
  core.log(`telegram: bot @${bot.botInfo.username} (${options.mode})`);
  if (options.mode === 'polling') {
    const polling = bot
      .start({ onStart: () => undefined })
      .catch((error: Error) => core.log(`telegram: ${error.message}`));
    return {
      core: channel,
      async stop() {
        await bot.stop().catch(() => undefined);
        await polling;
        channel.cancelAll();
        await channel.idle();
      },
    };
  }
  const handle = webhookCallback(bot, 'http', { secretToken: options.webhookSecret as string });
  const server: Server = createServer((request, response) => {
    if (request.method !== 'POST' || request.url?.split('?')[0] !== '/telegram') {
      response.writeHead(404).end();
      return;
    }
    handle(request, response).catch((error: Error) => {
      core.log(`telegram webhook: ${error.message}`);
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  const host = options.webhookHost ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.webhookPort ?? 8788, host, () => resolve());
  });
  const address = server.address();
  const url = typeof address === 'object' && address ? `http://${host}:${address.port}/telegram` : '';
  if (options.webhookUrl)
    await bot.api.setWebhook(options.webhookUrl, { secret_token: options.webhookSecret as string });
  core.log(`telegram: webhook listening on ${url}`);
  return {
    core: channel,
    url,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      channel.cancelAll();
      await channel.idle();
    },
  };
}
