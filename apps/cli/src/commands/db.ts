import { chooseDatabase } from '@birdie/runtime/database';
import { openUserStore } from '@birdie/runtime/runtime';
import { isStoreErrorLike, storeFailure } from '@birdie/runtime/store-failure';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_RUN, write } from '../io.js';

interface Status {
  kind: 'sqlite' | 'postgres';
  location: string;
  schema?: string;
  /** PostgreSQL: migrations applied, and known to this birdie. */
  current?: number;
  latest?: number;
  pending: string[];
}

/** `birdie db status`: the schema version of the database birdie would use, and what is pending. */
export async function dbStatusCommand({ io, values }: CommandContext): Promise<number> {
  const status = await statusOf(io, values, false);
  print(io, values, status);
  return status.pending.length > 0 ? EXIT_RUN : EXIT_OK;
}

/** `birdie db migrate`: applies pending migrations (PostgreSQL: in one transaction, under an advisory lock). */
export async function dbMigrateCommand({ io, values }: CommandContext): Promise<number> {
  const status = await statusOf(io, values, true);
  print(io, values, status);
  return EXIT_OK;
}

async function statusOf(
  io: CommandContext['io'],
  values: CommandContext['values'],
  apply: boolean,
): Promise<Status> {
  const choice = await chooseDatabase(io, values);
  if (choice.kind === 'sqlite') {
    // The SQLite file migrates whenever birdie opens it: opening is both the status and the migration.
    const store = await openUserStore(io, values);
    try {
      return { kind: 'sqlite', location: store.location, pending: [] };
    } finally {
      await store.close();
    }
  }
  const { migratePostgres, postgresMigrationStatus } = await import('@birdie/store-postgres');
  try {
    const options = { url: choice.url, schema: choice.schema };
    const s = apply ? await migratePostgres(options) : await postgresMigrationStatus(options);
    return {
      kind: 'postgres',
      location: redact(choice.url),
      schema: s.schema,
      current: s.current,
      latest: s.latest,
      pending: s.pending,
    };
  } catch (error) {
    throw isStoreErrorLike(error) ? storeFailure(error) : error;
  }
}

function print(io: CommandContext['io'], values: CommandContext['values'], s: Status): void {
  if (values.json) {
    write(io.stdout, JSON.stringify(s));
    return;
  }
  if (s.kind === 'sqlite') {
    write(io.stdout, `SQLite ${s.location}: up to date (birdie migrates the file when it opens it)`);
    return;
  }
  write(
    io.stdout,
    `PostgreSQL ${s.location}, schema ${s.schema}: version ${s.current} of ${s.latest}${
      s.pending.length ? `; pending: ${s.pending.join(', ')} (run \`birdie db migrate\`)` : ', up to date'
    }`,
  );
}

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}
