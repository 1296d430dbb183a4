import { StoreError } from '@birdie/store/backend';
import type { Timeouts } from './timeouts.js';

/** What the store knows about its server beyond the pool: where it is, and whether it only reads. */
export interface ServerState {
  /** The server as a URL without its password (messages name it). */
  location: string;
  /** The bounds on the server's answers (messages name them). */
  timeouts: Timeouts;
  readOnly?: { reason: 'read-only-server'; message: string; hint: string };
}

/**
 * The one place where PostgreSQL's and the network's failures become `StoreError`s (SQLSTATE classes and errno
 * codes). Errors without a code (bugs) pass through unchanged.
 */
export function toStoreError(error: unknown, state: ServerState): unknown {
  if (error instanceof StoreError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const reason = error instanceof Error ? error.message : String(error);
  const { location } = state;
  if (typeof code !== 'string') {
    // pg-pool's wait for a free connection: the server may be healthy and the pool merely busy (or every connection
    // stuck on a frozen server), so the message names the pool and both causes.
    if (reason.startsWith(POOL_WAIT_TIMEOUT)) {
      return new StoreError(
        'unavailable',
        `the database server ${location}: no connection of the pool came free within ${seconds(state.timeouts.connectMs)}: every one was busy (the server is slow to answer or frozen, or the load needs more connections)`,
        {
          cause: error,
          hint: 'retry shortly; if it lasts, check that the server answers (birdie doctor) and how loaded it is; the last saved step is intact',
        },
      );
    }
    const silence = silenceOf(reason, state.timeouts);
    if (silence !== undefined) {
      return unavailable(location, `it did not answer within ${seconds(silence)} (${reason})`, error);
    }
    if (
      error instanceof Error &&
      /Connection terminated|connection timeout|Client has encountered a connection error/i.test(reason)
    ) {
      return unavailable(location, reason, error);
    }
    return error;
  }
  if (
    ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE'].includes(code)
  ) {
    return unavailable(location, reason, error);
  }
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') {
    return unavailable(location, reason, error);
  }
  if (code === '28P01' || code === '28000') {
    return new StoreError('unavailable', `${location} refused the credentials: ${reason}`, {
      cause: error,
      hint: 'check the user and password in the database URL (BIRDIE_DATABASE_URL)',
    });
  }
  if (code === '3D000') {
    return new StoreError('unavailable', `${location}: ${reason}`, {
      cause: error,
      hint: 'create the database first (createdb NAME), or point the URL at an existing one',
    });
  }
  if (code === '40001' || code === '40P01' || code === '55P03') {
    return new StoreError('locked', `${location} kept a row locked by another writer (${reason})`, {
      cause: error,
      hint: 'another birdie is writing the same rows; try again in a moment',
    });
  }
  if (code === '53100') {
    return new StoreError(
      'disk-full',
      `the disk of the database server ${location} is full (${reason}); the last saved step is intact`,
      {
        cause: error,
        hint: 'free space on the database server (or ask its administrator to), then try again',
      },
    );
  }
  if (code === '25006') {
    state.readOnly ??= {
      reason: 'read-only-server',
      message: `the server only accepts reads (${reason})`,
      hint: 'point the URL at the primary server, or ask its administrator why it is read-only',
    };
    return new StoreError('read-only', `cannot write ${location}: ${state.readOnly.message}`, {
      cause: error,
      hint: state.readOnly.hint,
    });
  }
  if (code === '42501') {
    return new StoreError(
      'read-only',
      `cannot write ${location}: the database user lacks a privilege (${reason})`,
      {
        cause: error,
        hint: "grant the database user the rights on birdie's schema (GRANT ALL ON SCHEMA … TO …)",
      },
    );
  }
  if (code === 'XX001' || code === 'XX002') {
    return new StoreError('malformed', `${location} reports damaged data (${reason})`, {
      cause: error,
      hint: "restore the server's data from a backup, or ask its administrator (the server logs name the damaged relation)",
    });
  }
  if (code === '54000' || code === '22001' || code === '22P05' || code === '22021') {
    return new StoreError('invalid-argument', `a value cannot be stored in ${location} (${reason})`, {
      cause: error,
    });
  }
  if (/^[0-9A-Z]{5}$/.test(code)) {
    return new StoreError('io', `PostgreSQL failed on ${location}: ${reason} (SQLSTATE ${code})`, {
      cause: error,
    });
  }
  return error;
}

function unavailable(location: string, reason: string, cause: unknown): StoreError {
  return new StoreError('unavailable', `cannot reach the database server ${location}: ${reason}`, {
    cause,
    hint: 'check that the server is running and the URL (BIRDIE_DATABASE_URL) names it; the last saved step is intact',
  });
}

/**
 * Which bound expired, when `reason` is one of pg's timeouts: a statement's answer, or opening a connection. A frozen
 * server and a dropped network both end up here.
 */
function silenceOf(reason: string, timeouts: Timeouts): number | undefined {
  if (reason === 'Query read timeout') return timeouts.queryMs;
  if (reason.startsWith('Connection terminated due to connection timeout')) return timeouts.connectMs;
  if (reason === READY_TIMEOUT) return timeouts.readyMs;
  return undefined;
}

/** pg-pool's error when no connection of a full pool came free within `connectionTimeoutMillis`. */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

/** The message of `ready()`'s own bound (the store's, not pg's). */
export const READY_TIMEOUT = 'readiness probe timeout';

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** Whether retrying the whole transaction may succeed (a serialization failure or a deadlock victim). */
export function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:)[^@/?#]*@/i, '$1***@');
}
