import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import { wholeNumberFlag } from './number-flags.js';
import { type LogFormat, logFormat } from './serve-log.js';

/** What `birdie serve`'s flags ask of the server, checked before anything is opened. */
export interface ServeOptions {
  host: string;
  port: number;
  /** Requests per minute per token; 0 turns the limit off. */
  perMinute: number;
  maxBodyBytes: number;
  /** How long running turns may finish on SIGTERM/SIGINT, ms. */
  graceMs: number;
  corsOrigins: string[];
  /** The metrics listener's address (`--metrics-port`), or none. */
  metrics?: { host: string; port: number };
  logFormat: LogFormat;
}

/**
 * The server's options from the flags (`host`, `port`, `rate-limit`, `max-body`, `grace`, `cors-origin`,
 * `metrics-port`, `metrics-host`, `log-format`), with their defaults; a value out of range, an origin that is not
 * one, or `--metrics-host` without `--metrics-port` is a usage error.
 */
export function serveOptions(flags: Flags): ServeOptions {
  const host = typeof flags.host === 'string' ? flags.host : '127.0.0.1';
  const port = wholeNumberFlag(flags, 'port', { fallback: 8787, min: 0, max: 65535 });
  const perMinute = wholeNumberFlag(flags, 'rate-limit', { fallback: 600, min: 0, max: 1_000_000 });
  const maxBodyBytes = wholeNumberFlag(flags, 'max-body', {
    fallback: 1024 * 1024,
    min: 1024,
    max: 64 * 1024 * 1024,
  });
  const graceMs = wholeNumberFlag(flags, 'grace', { fallback: 10, min: 0, max: 3600 }) * 1000;
  const corsOrigins = Array.isArray(flags['cors-origin']) ? flags['cors-origin'] : [];
  for (const origin of corsOrigins)
    if (!/^https?:\/\/[^/\s]+$/.test(origin))
      throw new UsageError(
        `--cors-origin must be an origin such as https://app.example.com, got "${origin}"`,
      );
  const metricsHost = typeof flags['metrics-host'] === 'string' ? flags['metrics-host'] : '127.0.0.1';
  if (flags['metrics-port'] === undefined && flags['metrics-host'] !== undefined)
    throw new UsageError('--metrics-host needs --metrics-port (the metrics listener is off without it)');
  const metrics =
    flags['metrics-port'] === undefined
      ? undefined
      : {
          host: metricsHost,
          port: wholeNumberFlag(flags, 'metrics-port', { fallback: 0, min: 0, max: 65535 }),
        };
  return {
    host,
    port,
    perMinute,
    maxBodyBytes,
    graceMs,
    corsOrigins,
    ...(metrics ? { metrics } : {}),
    logFormat: logFormat(flags['log-format']),
  };
}
