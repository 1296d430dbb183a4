import { Writable } from 'node:stream';
import type { LogEntry } from '@birdie/server';
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
          line(JSON.stringify({ time: now().toISOString(), level, msg, ...fields }))
      : ({ msg, level: _level, ...fields }: LogEntry) => {
          let text = `birdie serve: ${msg}`;
          for (const [key, value] of Object.entries(fields))
            if (value !== undefined)
              text += ` ${key}=${typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)}`;
          line(text);
        };
  return Object.assign(log, { flush });
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
