import { readFileSync } from 'node:fs';
import { configFileProblem, explicitConfigPath } from './config.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { configFile } from './paths.js';

/** Where birdie keeps its data: the SQLite file under BIRDIE_HOME, or a PostgreSQL server shared by several workers. */
export type DatabaseChoice =
  | { kind: 'sqlite' }
  | { kind: 'postgres'; url: string; schema: string; from: string };

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

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
  const pick = (url: string, from: string): DatabaseChoice => ({ kind: 'postgres', url, schema, from });
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

/** The file's `settings.database_url`, checked like every setting (a bad value is a positioned usage error). */
async function urlInFile(io: RuntimeIo, path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
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
