import { Writable } from 'node:stream';
import type { LogEntry } from '@birdie/server';
import { type Output, UsageError, write } from '../io.js';

export type LogFormat = 'text' | 'json';
export type ServeLog = (entry: LogEntry) => void;

export function logFormat(value: unknown): LogFormat {
  if (value === undefined) return 'text';
  if (value === 'text' || value === 'json') return value;
  throw new UsageError(`--log-format must be text or json, got "${String(value)}"`);
}

/**
 * `birdie serve`'s log on `out` (stderr): `json`, one object per line (`time`, `level`, `msg`, then the entry's
 * fields: `requestId`, `method`, `path`, `status`, `durationMs`, `userId`, `sessionId`, …) for a log collector;
 * `text`, `birdie serve: MSG key=value …` for a person.
 */
export function serveLog(out: Output, format: LogFormat, now: () => Date = () => new Date()): ServeLog {
  if (format === 'json')
    return ({ level, msg, ...fields }) =>
      write(out, JSON.stringify({ time: now().toISOString(), level, msg, ...fields }));
  return ({ msg, level: _level, ...fields }) => {
    const pairs = Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(
        ([key, value]) =>
          `${key}=${typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)}`,
      );
    write(out, `birdie serve: ${msg}${pairs.length > 0 ? ` ${pairs.join(' ')}` : ''}`);
  };
}

/**
 * An output whose every line becomes a `warn` entry of the log: what the runtime writes to stderr while serving
 * (skill problems, settings warnings) stays one JSON object per line under `--log-format json`.
 */
export function linesToLog(log: ServeLog): Output {
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
