// A local fake of Telegram's Bot API for the tests: records every request, replays updates through getUpdates (or
// posts them to a webhook), keeps the messages the bot sent and edited, and serves files for getFile.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { StreamedBody } from './streamed-body.js';

export interface RecordedCall {
  method: string;
  params: Record<string, unknown>;
  /** The token the call used. */
  token: string;
}

export interface FakeMessage {
  chatId: string;
  messageId: number;
  text: string;
  /** Every text it had, first to last (the send, then each edit). */
  versions: string[];
  buttons?: Array<Array<{ text: string; callback_data: string }>>;
}

const BOT = { id: 999, is_bot: true, first_name: 'Birdie', username: 'birdie_test_bot' };

export class FakeBotApi {
  readonly calls: RecordedCall[] = [];
  readonly messages: FakeMessage[] = [];
  private readonly updates: Array<Record<string, unknown>> = [];
  private readonly files = new Map<string, Uint8Array | StreamedBody>();
  private readonly waiting = new Set<() => void>();
  private nextUpdateId = 1;
  /** Updates below this id were confirmed (a later getUpdates asked for a higher offset), as Telegram forgets them. */
  private confirmed = 0;
  private nextMessageId = 100;
  private server: Server | undefined;
  url = '';

  constructor(readonly token: string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(
        ({ status, body }) => {
          if (body instanceof StreamedBody) return body.serve(res);
          const binary = body instanceof Uint8Array;
          res.writeHead(status, { 'content-type': binary ? 'application/octet-stream' : 'application/json' });
          res.end(binary ? body : JSON.stringify(body));
        },
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (typeof address === 'object' && address) this.url = `http://127.0.0.1:${address.port}`;
  }

  async stop(): Promise<void> {
    for (const wake of this.waiting) wake();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Queues an update for getUpdates; returns it (with its update_id). */
  push(update: Record<string, unknown>): Record<string, unknown> {
    const full = { update_id: this.nextUpdateId++, ...update };
    this.updates.push(full);
    for (const wake of this.waiting) wake();
    return full;
  }

  /** An update with a message from `fromId` in `chatId` (private unless `chatType` says otherwise). */
  message(
    chatId: number,
    fromId: number,
    text: string,
    extra: Record<string, unknown> = {},
    chatType = 'private',
  ) {
    return {
      message: {
        message_id: this.nextMessageId++,
        date: Math.floor(Date.now() / 1000),
        chat: { id: chatId, type: chatType },
        from: { id: fromId, is_bot: false, first_name: `user${fromId}` },
        text,
        ...extra,
      },
    };
  }

  /** An update with a press of a button of one of the bot's messages. */
  press(message: FakeMessage, fromId: number, data: string) {
    return {
      callback_query: {
        id: `cq${this.nextUpdateId}`,
        from: { id: fromId, is_bot: false, first_name: `user${fromId}` },
        chat_instance: 'x',
        data,
        message: {
          message_id: message.messageId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(message.chatId), type: 'private' },
          from: BOT,
          text: message.text,
        },
      },
    };
  }

  /** A file getFile knows and the file server serves (a streamed body: chunk by chunk, counting what it wrote). */
  addFile(fileId: string, bytes: Uint8Array | StreamedBody): void {
    this.files.set(fileId, bytes);
  }

  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  messagesIn(chatId: number): FakeMessage[] {
    return this.messages.filter((m) => m.chatId === String(chatId));
  }

  /** Waits until `check` returns a value (polling the recorded state); fails with `what` after `timeoutMs`. */
  async waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = 30_000): Promise<T> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value !== undefined && value !== false) return value;
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const url = new URL(req.url ?? '/', 'http://x');
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (file) {
      const bytes = file[1] === this.token ? this.files.get(decodeURIComponent(file[2] ?? '')) : undefined;
      return bytes ? { status: 200, body: bytes } : { status: 404, body: { ok: false } };
    }
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
    if (!match) return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } };
    const [, token = '', method = ''] = match;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const params = raw && req.headers['content-type']?.includes('json') ? JSON.parse(raw) : {};
    this.calls.push({ method, params, token });
    if (token !== this.token)
      return { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } };
    const result = await this.answer(method, params);
    if (result === undefined)
      return { status: 400, body: { ok: false, error_code: 400, description: `Bad Request: ${method}` } };
    if (result instanceof Error)
      return { status: 400, body: { ok: false, error_code: 400, description: result.message } };
    return { status: 200, body: { ok: true, result } };
  }

  private async answer(method: string, p: Record<string, unknown>): Promise<unknown> {
    switch (method) {
      case 'getMe':
        return BOT;
      case 'deleteWebhook':
      case 'setWebhook':
      case 'answerCallbackQuery':
        return true;
      case 'getUpdates': {
        this.confirmed = Math.max(this.confirmed, Number(p.offset ?? 0));
        const offset = this.confirmed;
        const ready = () => this.updates.filter((u) => Number(u.update_id) >= offset);
        if (ready().length === 0 && Number(p.timeout ?? 0) > 0)
          await new Promise<void>((resolve) => {
            const wake = () => {
              this.waiting.delete(wake);
              clearTimeout(timer);
              resolve();
            };
            const timer = setTimeout(wake, 500);
            this.waiting.add(wake);
          });
        return ready().slice(0, Number(p.limit ?? 100));
      }
      case 'sendMessage': {
        const message: FakeMessage = {
          chatId: String(p.chat_id),
          messageId: this.nextMessageId++,
          text: String(p.text),
          versions: [String(p.text)],
          ...buttonsOf(p),
        };
        this.messages.push(message);
        return {
          message_id: message.messageId,
          date: 0,
          chat: { id: Number(p.chat_id), type: 'private' },
          text: p.text,
        };
      }
      case 'editMessageText': {
        const message = this.messages.find(
          (m) => m.chatId === String(p.chat_id) && m.messageId === Number(p.message_id),
        );
        if (!message) return new Error('Bad Request: message to edit not found');
        if (message.text === p.text && !p.reply_markup === !message.buttons)
          return new Error('Bad Request: message is not modified');
        message.text = String(p.text);
        message.versions.push(message.text);
        const buttons = buttonsOf(p).buttons;
        if (buttons) message.buttons = buttons;
        else delete message.buttons;
        return {
          message_id: message.messageId,
          date: 0,
          chat: { id: Number(p.chat_id), type: 'private' },
          text: p.text,
        };
      }
      case 'getFile': {
        const id = String(p.file_id);
        return this.files.has(id) ? { file_id: id, file_unique_id: id, file_path: id } : undefined;
      }
      default:
        return undefined;
    }
  }
}

function buttonsOf(p: Record<string, unknown>): Pick<FakeMessage, 'buttons'> {
  const markup = p.reply_markup as { inline_keyboard?: FakeMessage['buttons'] } | undefined;
  return markup?.inline_keyboard ? { buttons: markup.inline_keyboard } : {};
}
