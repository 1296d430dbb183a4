import { StoreError } from '@birdie/store/backend';
import pg from 'pg';
import { isRetryable, type ServerState, toStoreError } from './pg-errors.js';
import { DEFAULT_TIMEOUTS, type Timeouts } from './timeouts.js';

export type Client = pg.PoolClient;

// TCP keepalive notices a peer that is gone while a connection idles in the pool (no statement to time out).
const KEEPALIVE_DELAY_MS = 10_000;

/** A query target: the store (one statement, autocommit) or a client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

// int8 (counts, ids, ms timestamps) as numbers: every value birdie stores fits in 2^53.
const INT8 = 20;
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8 && format !== 'binary') return (value: string) => Number(value);
    return (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
  },
};

/** The pool and what every repository needs around it: transactions, the schema, the server's state. */
export class Db {
  readonly pool: pg.Pool;
  readonly state: ServerState;
  closed = false;

  constructor(
    options: { url: string; max?: number; timeouts?: Partial<Timeouts> },
    readonly schema: string,
    location: string,
  ) {
    const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.state = { location, timeouts };
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.max ?? 10,
      connectionTimeoutMillis: timeouts.connectMs,
      // Client-side: a server-side statement_timeout never fires when the server itself does not answer. pg-pool
      // destroys a connection whose statement failed (its socket is not reused); `tx` does the same.
      ...(timeouts.queryMs > 0 ? { query_timeout: timeouts.queryMs } : {}),
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
      types: types as pg.CustomTypesConfig,
      // Every connection works in birdie's schema: table names stay unqualified.
      options: `-c search_path=${quoteIdent(schema)}`,
    });
    // A connection that dies (the server restarts, the network drops) must never crash the process. `pg` emits
    // 'error' on the client, and pg-pool listens only while the client is idle in the pool (its 'error' event then
    // drops it): a client checked out for a transaction has no listener, and an unhandled 'error' event kills Node.
    // So every client gets one for its whole life. The statements in flight reject on their own (`pg` fails every
    // queued query with the same error: `unavailable` once mapped), `tx` releases the client as broken, and the
    // pool opens new connections on the next call, once the server is back.
    this.pool.on('connect', (client) => {
      client.on('error', () => {});
    });
    this.pool.on('error', () => {});
  }

  /** One statement outside a transaction. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    this.ensureOpen();
    return this.pool.query<R>(text, values);
  }

  /**
   * Runs `fn` in a transaction (READ COMMITTED; the statements lock what they need), retrying the whole of it when
   * the server picks it as a deadlock victim or a serialization failure. Writes refuse at once on a read-only server.
   */
  async tx<T>(
    fn: (client: Client) => Promise<T>,
    options: { write?: boolean; durable?: boolean; unbounded?: boolean } = {},
  ): Promise<T> {
    this.ensureOpen();
    if (options.write !== false && this.state.readOnly) {
      throw new StoreError(
        'read-only',
        `cannot write ${this.state.location}: ${this.state.readOnly.message}`,
        {
          hint: this.state.readOnly.hint,
        },
      );
    }
    for (let attempt = 0; ; attempt += 1) {
      const client = await this.pool.connect();
      let broken = false;
      // Migrations may legitimately run long (an index on a big table): their statements get no client-side bound.
      const bounded = unbounded(client, options.unbounded === true);
      try {
        await client.query(options.durable ? 'BEGIN; SET LOCAL synchronous_commit TO on' : 'BEGIN');
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        if (isQueryTimeout(error)) {
          // The timed-out statement still occupies the connection: a ROLLBACK would queue behind it (and wait as
          // long again). Dropping the connection ends the transaction on the server too.
          broken = true;
          throw error;
        }
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        if (isRetryable(error) && attempt < 8) {
          await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** Math.min(attempt, 5)));
          continue;
        }
        throw error;
      } finally {
        bounded.restore();
        client.release(broken);
      }
    }
  }

  ensureOpen(): void {
    if (this.closed) throw new StoreError('closed', 'the store is closed');
  }

  map(error: unknown): unknown {
    return toStoreError(error, this.state);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

/** pg's client-side statement timeout (`query_timeout`) fired. */
export function isQueryTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
}

/** Lifts the client-side statement bound of one checked-out connection while `lift`, until `restore()`. */
function unbounded(client: Client, lift: boolean): { restore(): void } {
  // pg reads the bound per statement from the connection's parameters (a statement's own `query_timeout` can only
  // replace it with another non-zero one).
  const params = (client as unknown as { connectionParameters: { query_timeout?: number } })
    .connectionParameters;
  const before = params.query_timeout;
  if (lift) params.query_timeout = 0;
  return {
    restore() {
      params.query_timeout = before;
    },
  };
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The database's clock in ms: leases expire by it, so the workers' clocks need not agree. */
export const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
