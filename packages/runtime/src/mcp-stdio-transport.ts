import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { TopLevelIdScan } from './json-rpc-id-scan.js';

/** The longest line read as a message (the SDK's stdio limit, 10 MiB); a longer one is refused and skipped. */
export const MCP_STDIO_MAX_LINE = 10 * 1024 * 1024;

export interface McpStdioTransportOptions {
  /** The longest line read as a message, in bytes. */
  maxLine?: number;
  /** Told of each line refused (not JSON, not JSON-RPC, too long): one sentence, for the operator. */
  onRefused?: (note: string) => void;
}

type Id = string | number;

/**
 * MCP over stdio: one JSON-RPC message a line. Unlike the SDK's `StdioServerTransport`, which drops a line it cannot
 * read and closes (as if the client had left) on one over its buffer limit, this answers as JSON-RPC 2.0 says: `-32700`
 * for a line that is not JSON, `-32600` for one that is not a JSON-RPC message or is too long (skipped to its end;
 * the id when it can be read, else null), and reads on. When the input ends it stops reading but stays open until each
 * request it received is answered (or cancelled by the client): a client may write its last request and close stdin.
 * A request to the client then (an approval question) fails at once, since no answer can come.
 */
export class McpStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly maxLine: number;
  /** The line being read, in pieces, while it fits. */
  private parts: Buffer[] = [];
  private size = 0;
  /** Set once the line being read is too long: its id is looked for while the rest of it is skipped. */
  private overflow: TopLevelIdScan | undefined;
  /** The client's requests not answered yet. */
  private readonly unanswered = new Set<Id>();
  /** The requests sent to the client that it has not answered. */
  private readonly asked = new Set<Id>();
  private writing = 0;
  private inputEnded = false;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly options: McpStdioTransportOptions = {},
  ) {
    this.maxLine = options.maxLine ?? MCP_STDIO_MAX_LINE;
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
    this.input.once('end', this.onEnd);
    this.input.once('close', this.onInputClose);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('method' in message && 'id' in message) {
      if (this.inputEnded) throw new Error('the client closed its input: it can answer no request');
      this.asked.add(message.id);
    } else if ('id' in message && message.id !== undefined) this.unanswered.delete(message.id);
    await this.write(message);
    this.closeWhenDone();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onInputClose);
    // Nothing else reads the input: leaving it flowing would keep the process alive.
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.parts = [];
    this.onclose?.();
  }

  private write(message: unknown): Promise<void> {
    this.writing += 1;
    return new Promise<void>((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    }).finally(() => {
      this.writing -= 1;
    });
  }

  /** After the input ended: closes once every request is answered and written. */
  private closeWhenDone() {
    if (this.inputEnded && this.unanswered.size === 0 && this.writing === 0) void this.close();
  }

  private readonly onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(0x0a, start);
      const piece = bytes.subarray(start, newline === -1 ? bytes.length : newline);
      if (this.overflow) this.overflow.feed(piece);
      else if (this.size + piece.length > this.maxLine) {
        this.overflow = new TopLevelIdScan();
        for (const part of this.parts) this.overflow.feed(part);
        this.overflow.feed(piece);
        this.parts = [];
        this.size = 0;
      } else {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  };

  private endLine() {
    if (this.overflow) {
      const id = this.overflow.id ?? null;
      this.overflow = undefined;
      this.refuse(
        ErrorCode.InvalidRequest,
        id,
        `Invalid Request: the message is longer than ${this.maxLine} bytes, the longest line birdie mcp reads; it was skipped`,
        `a message longer than ${this.maxLine} bytes was refused`,
      );
      return;
    }
    const line = Buffer.concat(this.parts, this.size).toString('utf8');
    this.parts = [];
    this.size = 0;
    this.readLine(line);
  }

  private readLine(line: string) {
    // Blank lines (a client's trailing `\r\n`, a keep-alive newline) carry nothing to answer.
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.refuse(
        ErrorCode.ParseError,
        null,
        `Parse error: the line is not JSON (${reason})`,
        `a line that is not JSON was refused (${reason})`,
      );
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.refuse(
        ErrorCode.InvalidRequest,
        requestId(value),
        'Invalid Request: not a JSON-RPC 2.0 message',
        'a line that is not a JSON-RPC 2.0 message was refused',
      );
      return;
    }
    const message = parsed.data;
    if ('method' in message) {
      if ('id' in message) this.unanswered.add(message.id);
      else if (message.method === 'notifications/cancelled') {
        // A cancelled request gets no answer (the SDK sends none): nothing to wait for at the end of the input.
        const cancelled = (message.params as { requestId?: unknown } | undefined)?.requestId;
        if (typeof cancelled === 'string' || typeof cancelled === 'number') {
          this.unanswered.delete(cancelled);
          queueMicrotask(() => this.closeWhenDone());
        }
      }
    } else if ('id' in message && message.id !== undefined) this.asked.delete(message.id);
    this.onmessage?.(message);
  }

  private refuse(code: number, id: Id | null, message: string, note: string) {
    this.options.onRefused?.(note);
    void this.write({ jsonrpc: '2.0', id, error: { code, message } }).then(() => this.closeWhenDone());
  }

  private readonly onInputError = (error: Error) => {
    this.onerror?.(error);
  };

  private readonly onEnd = () => {
    // A last line without its newline is still a message.
    if (this.overflow || this.size > 0) this.endLine();
    this.inputEnded = true;
    this.input.off('data', this.onData);
    // The requests the client was asked get no answer now: each fails, as the SDK fails them when a connection closes.
    for (const id of this.asked) {
      this.onmessage?.({
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.ConnectionClosed, message: 'the client closed its input' },
      });
    }
    this.asked.clear();
    this.closeWhenDone();
  };

  /** The input closed without ending (destroyed: the application stops the server): closes now. */
  private readonly onInputClose = () => {
    if (!this.inputEnded) void this.close();
  };
}

/** The id of a request that is not valid JSON-RPC, when it has one that can be read (a response's is not answered). */
function requestId(value: unknown): Id | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  if ('result' in record || 'error' in record) return null;
  return typeof record.id === 'string' || typeof record.id === 'number' ? record.id : null;
}
