import { Writable } from 'node:stream';
import type { LogEntry } from '@birdie/server';
import { isStoreError } from '@birdie/store/errors';
import { UsageError } from './errors.js';

/** Where the log goes: stderr, or any stream. */
type Output = { write(text: string): unknown };

export type LogFormat = 'text' | 'json';
/** The log, and `flush()`: what waits for the end of this step of the event loop is written now. */
export type ServeLog = ((entry: LogEntry) => void) & { flush(): void };

/** `--log-format`: `text` (the default) or `json`; anything else is a usage error. */
export function logFormat(value: unknown): LogFormat {
  if (value === undefined) return 'text';
  if (value === 'text' || value === 'json') return value;
  throw new UsageError(`--log-format must be text or json, got "${String(value)}"`);
}

/**
 * `birdie serve`'s log on `out` (stderr): `json`, one object per line (`time`, `level`, `msg`, then the entry's
 * fields: `requestId`, `method`, `path`, `status`, `durationMs`, `userId`, `sessionId`, …) for a log collector;
 * `text`, `birdie serve: MSG key=value …` for a person. The lines of one step of the event loop leave in one write
 * (stderr on a pipe is written synchronously: one system call, and one wake-up of the reader, per line otherwise,
 * three per turn under load); `flush()` writes them at once, as the command does before it ends.
 */
export function serveLog(out: Output, format: LogFormat, now: () => Date = () => new Date()): ServeLog {
  const { line, flush } = lineBatch(out);
  const log =
    format === 'json'
      ? ({ level, msg, ...fields }: LogEntry) =>
          line(escapeUnseen(JSON.stringify({ time: now().toISOString(), level, msg, ...fields })))
      : ({ msg, level: _level, ...fields }: LogEntry) => {
          let text = `birdie serve: ${terminalSafe(msg)}`;
          for (const [key, value] of Object.entries(fields))
            if (value !== undefined) text += ` ${key}=${logValue(value)}`;
          line(text);
        };
  return Object.assign(log, { flush });
}

/** Printable ASCII but blanks, quotes, `=` and backslashes: a value made of these alone needs no quotes. */
const PLAIN = /^[\x21\x23-\x3c\x3e-\x5b\x5d-\x7e]+$/;
/** The C0 controls but newline and tab, which a message (a stack) may hold: the rest move the cursor or hide. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f]/g;
/**
 * What JSON leaves as it is but a terminal acts on or hides: DEL and the C1 controls (U+009B starts an escape
 * sequence on 8-bit terminals), and the invisible format characters (a U+202E reorders the rest of the line).
 */
const UNSEEN = /[\u007f-\u009f\p{Cf}\u2028\u2029]/gu;

/** A character as `\uXXXX` per UTF-16 unit: the same character to a JSON reader, visible to a person. */
function escapeUnit(c: string): string {
  return [...Array(c.length).keys()]
    .map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`)
    .join('');
}

function escapeUnseen(text: string): string {
  return text.replace(UNSEEN, escapeUnit);
}

/**
 * A message as a terminal may show it: controls but newline and tab, and the invisible characters, written `\uXXXX`.
 * For a front end that writes a `failureEntry`'s message itself (`birdie mcp --http`).
 */
export function terminalSafe(text: string): string {
  return escapeUnseen(text.replace(CONTROL, escapeUnit));
}

/**
 * A field's value in a text line. A client writes much of it (the request path, before any token is checked), so
 * anything but plain ASCII is quoted as JSON, and what JSON would leave raw is written `\uXXXX` too: no escape
 * sequence, NUL or bidi override reaches the operator's terminal or makes `grep` call the log binary.
 */
function logValue(value: unknown): string {
  if (typeof value === 'string' && PLAIN.test(value)) return value;
  return escapeUnseen(JSON.stringify(value) ?? String(value));
}

/**
 * The log entry of a failure nobody else is told of in full (a request's, the turn log's): a store's failure (the
 * database went away, a disk filled) is expected and has one sentence that says it all, so it is logged as that
 * sentence with its code; anything else is a defect, logged with its stack.
 */
export function failureEntry(error: unknown, where: string, context: { requestId?: string } = {}): LogEntry {
  // One line: the sentence may quote what a client sent, which must not start a line of its own.
  if (isStoreError(error))
    return {
      level: 'error',
      msg: `${where}: ${error.message.replace(/[\r\n]/g, escapeUnit)}`,
      errorCode: error.code,
      ...context,
    };
  // A workspace the server cannot make (`@birdie/server`'s WorkspaceUnusableError, told apart by name so this module
  // loads without the server): its sentence says which user, folder and why; a stack would only bury it.
  if (error instanceof Error && error.name === 'WorkspaceUnusableError')
    return {
      level: 'error',
      msg: `${where}: ${error.message.replace(/[\r\n]/g, escapeUnit)}`,
      errorCode: 'workspace-unusable',
      ...context,
    };
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { level: 'error', msg: `${where}: ${text}`, ...context };
}

/** Lines gathered until the event loop's next check phase (or `flush()`), then written to `out` in one call. */
function lineBatch(out: Output): { line(text: string): void; flush(): void } {
  let pending = '';
  let scheduled: NodeJS.Immediate | undefined;
  const flush = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    if (pending === '') return;
    const text = pending;
    pending = '';
    out.write(text);
  };
  return {
    line(text) {
      pending += `${text}\n`;
      scheduled ??= setImmediate(flush);
    },
    flush,
  };
}

/**
 * An output whose every line becomes a `warn` entry of the log: what the runtime writes to stderr while serving
 * (skill problems, settings warnings) stays one JSON object per line under `--log-format json`.
 */
export function linesToLog(log: (entry: LogEntry) => void): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') log({ level: 'warn', msg: line });
      done();
    },
    final(done) {
      if (pending.trim() !== '') log({ level: 'warn', msg: pending });
      done();
    },
  });
}
