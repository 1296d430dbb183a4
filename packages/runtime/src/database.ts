import { configFileProblem, explicitConfigPath } from './config.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { configFile } from './paths.js';
import { readRegularTextSync } from './regular-file.js';

/** Where birdie keeps its data: the SQLite file under BIRDIE_HOME, or a PostgreSQL server shared by several workers. */
export type DatabaseChoice =
  | { kind: 'sqlite' }
  | { kind: 'postgres'; url: string; schema: string; from: string; timeouts: DatabaseTimeouts };

/** How long to wait for the server before a call fails `unavailable` (unset: the store's defaults). */
export interface DatabaseTimeouts {
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
  readyTimeoutMs?: number;
}

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;
// The store's own readiness bound; a shorter statement bound shortens it too.
const READY_TIMEOUT_MS = 5_000;

/**
 * `database_url` of `--config FILE` > `BIRDIE_DATABASE_URL` > `database_url` of `~/.birdie/config.json` (the order
 * every other setting follows), else SQLite. Cheap when unused: a config file is parsed only if it names the key.
 * `BIRDIE_DATABASE_SCHEMA` picks the schema of birdie's tables (default `birdie`).
 */
export async function chooseDatabase(io: RuntimeIo, values: Flags = {}): Promise<DatabaseChoice> {
  const schema = io.env.BIRDIE_DATABASE_SCHEMA || 'birdie';
  const { UsageError } = await import('./errors.js');
  if (!SCHEMA.test(schema))
    throw new UsageError(
      `BIRDIE_DATABASE_SCHEMA must be 1-63 of [a-z0-9_], starting with a letter or _, got ${JSON.stringify(schema)}`,
    );
  // PostgreSQL refuses to create such a schema ("unacceptable schema name"): say so before connecting.
  if (schema.startsWith('pg_'))
    throw new UsageError(
      `BIRDIE_DATABASE_SCHEMA must not start with pg_ (PostgreSQL reserves that prefix for its own schemas), got ${JSON.stringify(schema)}`,
    );
  const timeouts = databaseTimeouts(io, UsageError);
  const pick = (url: string, from: string): DatabaseChoice => ({
    kind: 'postgres',
    url,
    schema,
    from,
    timeouts,
  });
  const explicit = explicitConfigPath(io, values);
  if (explicit) {
    const url = await urlInFile(io, explicit);
    if (url) return pick(url, `file ${explicit}`);
  }
  const env = io.env.BIRDIE_DATABASE_URL;
  if (env) {
    if (!/^postgres(ql)?:\/\//.test(env))
      throw new UsageError('BIRDIE_DATABASE_URL must be a postgres:// (or postgresql://) connection string');
    return pick(env, 'env BIRDIE_DATABASE_URL');
  }
  const saved = configFile(io.env);
  if (saved !== explicit) {
    const url = await urlInFile(io, saved);
    if (url) return pick(url, `file ${saved}`);
  }
  return { kind: 'sqlite' };
}

/**
 * `BIRDIE_DATABASE_CONNECT_TIMEOUT_MS` and `BIRDIE_DATABASE_QUERY_TIMEOUT_MS` (0: no bound on a statement): how long
 * a frozen server or a dropped network may keep a call waiting.
 */
function databaseTimeouts(io: RuntimeIo, UsageError: new (message: string) => Error): DatabaseTimeouts {
  const read = (name: string, min: number): number | undefined => {
    const text = io.env[name];
    if (text === undefined || text === '') return undefined;
    const value = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min)
      throw new UsageError(
        `${name} must be a whole number of milliseconds${min > 0 ? ` from ${min}` : ''}, got ${JSON.stringify(text)}`,
      );
    return value;
  };
  const out: DatabaseTimeouts = {};
  const connect = read('BIRDIE_DATABASE_CONNECT_TIMEOUT_MS', 1);
  const query = read('BIRDIE_DATABASE_QUERY_TIMEOUT_MS', 0);
  if (connect !== undefined) out.connectTimeoutMs = connect;
  if (query !== undefined) {
    out.queryTimeoutMs = query;
    if (query > 0 && query < READY_TIMEOUT_MS) out.readyTimeoutMs = query;
  }
  return out;
}

/** The file's `settings.database_url`, checked like every setting (a bad value is a positioned usage error). */
async function urlInFile(io: RuntimeIo, path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = readRegularTextSync(path);
  } catch {
    return undefined; // A missing file names nothing; an unreadable one is reported where the config is loaded.
  }
  if (!text.includes('database_url')) return undefined;
  const [{ readConfigFile, ProviderError }, { checkSettings }] = await Promise.all([
    import('@birdie/providers'),
    import('./settings-schema.js'),
  ]);
  try {
    return checkSettings(await readConfigFile(path)).database_url;
  } catch (error) {
    if (error instanceof ProviderError) throw configFileProblem(io, error);
    throw error;
  }
}
