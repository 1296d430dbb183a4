// A local fake of Slack for the tests: the Web API (records every request; keeps the messages the bot posted and
// updated, its ephemeral messages, and serves private files), and the two ways Slack delivers events: the Events API
// (HTTP POSTs signed with the signing secret, or signed wrongly on purpose) and Socket Mode (a WebSocket URL handed
// out by apps.connections.open, envelopes acknowledged by the app).
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';
import { StreamedBody } from './streamed-body.js';

export interface SlackCall {
  method: string;
  params: Record<string, unknown>;
  /** The bearer token the call used. */
  token: string;
}

export interface SlackButton {
  text: string;
  action_id: string;
  value: string;
}

export interface SlackMessage {
  channel: string;
  ts: string;
  threadTs?: string;
  text: string;
  /** Every text it had, first to last (the post, then each update). */
  versions: string[];
  buttons?: SlackButton[];
}

export interface SlackEphemeral {
  channel: string;
  user: string;
  text: string;
  threadTs?: string;
}

/** How to sign an Events API request: the right secret and now, unless a test says otherwise. */
export interface SignOptions {
  /** `false`: no signature headers at all. */
  secret?: string | false;
  /** Seconds since the epoch (default now). */
  timestamp?: number;
}

export const SLACK_BOT_USER = 'UBIRDIE';
const BOT_ID = 'BBIRDIE';
const TEAM = 'T0001';

export class FakeSlackApi {
  readonly calls: SlackCall[] = [];
  readonly messages: SlackMessage[] = [];
  readonly ephemerals: SlackEphemeral[] = [];
  /** Envelopes the app acknowledged over Socket Mode, by id. */
  readonly acked = new Set<string>();
  /** Where Events API requests go (set by the test once the app listens). */
  eventsUrl = '';
  url = '';
  private readonly files = new Map<
    string,
    { bytes: Uint8Array | StreamedBody; name: string; mimetype: string }
  >();
  private server: Server | undefined;
  private wss: WebSocketServer | undefined;
  private sockets = new Set<WebSocket>();
  private pinger: NodeJS.Timeout | undefined;
  private clock = 1_700_000_000;
  private seq = 0;

  constructor(
    readonly botToken: string,
    readonly options: { appToken?: string; signingSecret?: string } = {},
  ) {}

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
    this.wss = new WebSocketServer({ noServer: true });
    this.server.on('upgrade', (req, socket, head) => {
      if (!req.url?.startsWith('/socket')) return socket.destroy();
      this.wss?.handleUpgrade(req, socket, head, (ws) => {
        this.sockets.add(ws);
        ws.on('close', () => this.sockets.delete(ws));
        ws.on('message', (data) => {
          const parsed = JSON.parse(String(data)) as { envelope_id?: string };
          if (parsed.envelope_id) this.acked.add(parsed.envelope_id);
        });
        ws.send(JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A1' } }));
      });
    });
    // Slack pings its Socket Mode clients; the client reconnects after 30 s without one.
    this.pinger = setInterval(() => {
      for (const ws of this.sockets) ws.ping();
    }, 5000);
    this.pinger.unref();
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (typeof address === 'object' && address) this.url = `http://127.0.0.1:${address.port}`;
  }

  /** The Web API's base address, as `clientOptions.slackApiUrl` takes it. */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  get socketConnections(): number {
    return this.sockets.size;
  }

  async stop(): Promise<void> {
    clearInterval(this.pinger);
    for (const ws of this.sockets) ws.terminate();
    this.wss?.close();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /**
   * A file the bot may download from `url_private_download` (with its bot token); returns the share's file object
   * (with its `size`, except for a streamed body: a share whose size Slack did not announce).
   */
  addFile(
    id: string,
    name: string,
    mimetype: string,
    bytes: Uint8Array | StreamedBody,
  ): Record<string, unknown> {
    this.files.set(id, { bytes, name, mimetype });
    return {
      id,
      name,
      mimetype,
      ...(bytes instanceof Uint8Array ? { size: bytes.byteLength } : {}),
      url_private: `${this.url}/files/${id}`,
      url_private_download: `${this.url}/files/${id}/download`,
    };
  }

  /** A `message` event from `user` in `channel` (a DM when the channel starts with D). */
  message(channel: string, user: string, text: string, extra: Record<string, unknown> = {}) {
    return this.eventCallback({
      type: 'message',
      channel,
      channel_type: channel.startsWith('D') ? 'im' : 'channel',
      user,
      text,
      ts: this.nextTs(),
      ...extra,
    });
  }

  /**
   * An `app_mention` event, and the `message` event of the same post (Slack sends both to a channel member); `ts` is
   * the post's, the thread the bot answers in.
   */
  mention(channel: string, user: string, text: string, extra: Record<string, unknown> = {}) {
    const ts = this.nextTs();
    const base = { channel, user, text: `<@${SLACK_BOT_USER}> ${text}`, ts, ...extra };
    return {
      ts,
      mention: this.eventCallback({ type: 'app_mention', ...base }),
      echo: this.eventCallback({ type: 'message', channel_type: 'channel', ...base }),
    };
  }

  /** A `block_actions` payload: `user` pressed the button `actionId` of one of the bot's messages. */
  press(message: SlackMessage, user: string, actionId: string) {
    const button = message.buttons?.find((b) => b.action_id === actionId);
    return {
      type: 'block_actions',
      team: { id: TEAM },
      user: { id: user },
      api_app_id: 'A1',
      token: 'verification-token',
      trigger_id: `trigger-${++this.seq}`,
      channel: { id: message.channel },
      container: { type: 'message', message_ts: message.ts, channel_id: message.channel },
      message: {
        type: 'message',
        ts: message.ts,
        text: message.text,
        ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
      },
      response_url: `${this.url}/response/${++this.seq}`,
      actions: [
        {
          type: 'button',
          action_id: actionId,
          block_id: 'approval',
          value: button?.value ?? actionId,
          action_ts: this.nextTs(),
        },
      ],
    };
  }

  /** A slash command's payload (`/new` typed in `channel`). */
  command(channel: string, user: string, command: string, text = '') {
    return {
      token: 'verification-token',
      team_id: TEAM,
      channel_id: channel,
      user_id: user,
      command,
      text,
      api_app_id: 'A1',
      response_url: `${this.url}/response/${++this.seq}`,
      trigger_id: `trigger-${++this.seq}`,
    };
  }

  /**
   * Delivers an event callback, an interaction or a slash command the way the app listens: over the Socket Mode
   * connection when one is open, else as a signed Events API request to `eventsUrl`. Returns the HTTP status (200
   * for Socket Mode once the envelope is acknowledged).
   */
  async deliver(payload: Record<string, unknown>, sign: SignOptions = {}): Promise<number> {
    const [socket] = this.sockets;
    if (socket) {
      const envelope = randomUUID();
      const type =
        payload.type === 'event_callback'
          ? 'events_api'
          : 'command' in payload
            ? 'slash_commands'
            : 'interactive';
      socket.send(
        JSON.stringify({
          envelope_id: envelope,
          type,
          payload,
          accepts_response_payload: type !== 'events_api',
        }),
      );
      await this.waitFor(`the ack of ${envelope}`, () => this.acked.has(envelope));
      return 200;
    }
    return this.post(payload, sign);
  }

  /** An Events API request to `eventsUrl` with `payload` in Slack's encoding for its kind, signed as told. */
  async post(payload: Record<string, unknown>, sign: SignOptions = {}): Promise<number> {
    const body =
      payload.type === 'event_callback'
        ? JSON.stringify(payload)
        : 'command' in payload
          ? new URLSearchParams(payload as Record<string, string>).toString()
          : new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const json = payload.type === 'event_callback';
    const timestamp = sign.timestamp ?? Math.floor(Date.now() / 1000);
    const secret = sign.secret ?? this.options.signingSecret;
    const headers: Record<string, string> = {
      'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
    };
    if (secret !== false && secret !== undefined) {
      const digest = createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
      headers['x-slack-request-timestamp'] = String(timestamp);
      headers['x-slack-signature'] = `v0=${digest}`;
    }
    const response = await fetch(this.eventsUrl, { method: 'POST', headers, body });
    await response.arrayBuffer();
    return response.status;
  }

  callsOf(method: string): SlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  messagesIn(channel: string, threadTs?: string): SlackMessage[] {
    return this.messages.filter(
      (m) => m.channel === channel && (threadTs === undefined || m.threadTs === threadTs),
    );
  }

  /** Waits until `check` returns a value (polling the recorded state); fails with `what` after `timeoutMs`. */
  async waitFor<T>(what: string, check: () => T | undefined | null | false, timeoutMs = 30_000): Promise<T> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value !== undefined && value !== null && value !== false) return value;
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  private eventCallback(event: Record<string, unknown>) {
    return {
      token: 'verification-token',
      team_id: TEAM,
      api_app_id: 'A1',
      type: 'event_callback',
      event_id: `Ev${++this.seq}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: TEAM, user_id: SLACK_BOT_USER, is_bot: true }],
      event,
    };
  }

  private nextTs(): string {
    return `${++this.clock}.${String(++this.seq).padStart(6, '0')}`;
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const url = new URL(req.url ?? '/', 'http://x');
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const file = /^\/files\/([^/]+)/.exec(url.pathname);
    if (file) {
      this.calls.push({ method: 'files.download', params: { id: file[1] }, token });
      const found = token === this.botToken ? this.files.get(file[1] ?? '') : undefined;
      return found ? { status: 200, body: found.bytes } : { status: 404, body: { ok: false } };
    }
    const match = /^\/api\/([\w.]+)$/.exec(url.pathname);
    if (!match) return { status: 404, body: { ok: false, error: 'unknown_method' } };
    const method = match[1] as string;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const params = parseBody(Buffer.concat(chunks).toString('utf8'), req.headers['content-type']);
    this.calls.push({ method, params, token });
    const expected = method === 'apps.connections.open' ? this.options.appToken : this.botToken;
    if (!expected || token !== expected) return { status: 200, body: { ok: false, error: 'invalid_auth' } };
    const result = this.answer(method, params);
    if (typeof result === 'string') return { status: 200, body: { ok: false, error: result } };
    return { status: 200, body: { ok: true, ...result } };
  }

  private answer(method: string, p: Record<string, unknown>): Record<string, unknown> | string {
    switch (method) {
      case 'auth.test':
        return {
          url: 'https://fake.slack.test/',
          team: 'Fake',
          user: 'birdie',
          team_id: TEAM,
          user_id: SLACK_BOT_USER,
          bot_id: BOT_ID,
        };
      case 'apps.connections.open':
        return { url: `${this.url.replace(/^http/, 'ws')}/socket?ticket=${randomUUID()}` };
      case 'chat.postMessage': {
        if (tooLongSection(p.blocks)) return 'invalid_blocks';
        const message: SlackMessage = {
          channel: String(p.channel),
          ts: this.nextTs(),
          text: String(p.text ?? ''),
          versions: [String(p.text ?? '')],
          ...(p.thread_ts ? { threadTs: String(p.thread_ts) } : {}),
          ...buttonsOf(p.blocks),
        };
        this.messages.push(message);
        return { channel: message.channel, ts: message.ts, message: { text: message.text } };
      }
      case 'chat.update': {
        const message = this.messages.find((m) => m.channel === String(p.channel) && m.ts === String(p.ts));
        if (!message) return 'message_not_found';
        if (tooLongSection(p.blocks)) return 'invalid_blocks';
        message.text = String(p.text ?? '');
        message.versions.push(message.text);
        // As Slack: blocks given replace the old ones (none: removed); blocks left out keep them.
        if (p.blocks !== undefined) {
          const { buttons } = buttonsOf(p.blocks);
          if (buttons) message.buttons = buttons;
          else delete message.buttons;
        }
        return { channel: message.channel, ts: message.ts };
      }
      case 'chat.postEphemeral':
        this.ephemerals.push({
          channel: String(p.channel),
          user: String(p.user),
          text: String(p.text ?? ''),
          ...(p.thread_ts ? { threadTs: String(p.thread_ts) } : {}),
        });
        return { message_ts: this.nextTs() };
      default:
        return 'unknown_method';
    }
  }
}

/** The Web API's bodies: form-encoded (objects JSON-encoded in a field, as the WebClient sends them) or JSON. */
function parseBody(raw: string, type: string | undefined): Record<string, unknown> {
  if (raw === '') return {};
  if (type?.includes('json')) return JSON.parse(raw) as Record<string, unknown>;
  const params: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    params[key] = key === 'blocks' || key === 'attachments' ? JSON.parse(value) : value;
  }
  return params;
}

/** Slack refuses a message whose section block holds more than 3,000 characters of text (`invalid_blocks`). */
const SECTION_MAX = 3000;

function tooLongSection(blocks: unknown): boolean {
  if (!Array.isArray(blocks)) return false;
  return blocks.some(
    (b: { type?: string; text?: { text?: string } }) =>
      b?.type === 'section' && (b.text?.text?.length ?? 0) > SECTION_MAX,
  );
}

function buttonsOf(blocks: unknown): Pick<SlackMessage, 'buttons'> {
  if (!Array.isArray(blocks)) return {};
  const buttons = blocks
    .filter((b): b is { type: string; elements: SlackButton[] } => b?.type === 'actions')
    .flatMap((b) => b.elements)
    .map((e) => ({
      text: (e as unknown as { text: { text: string } }).text.text,
      action_id: e.action_id,
      value: e.value,
    }));
  return buttons.length > 0 ? { buttons } : {};
}
