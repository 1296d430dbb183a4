import { type DatabaseStatus, databaseStatus } from '@birdie/runtime/database-status';
import { isStoreErrorLike } from '@birdie/runtime/store-failure';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_RUN, write } from '../io.js';

/** `birdie db status`: the schema version of the database birdie would use, and what is pending. */
export async function dbStatusCommand({ io, values }: CommandContext): Promise<number> {
  const status = await reportingFailure({ io, values }, () => databaseStatus(io, values, false));
  print(io, values, status);
  return status.pending.length > 0 ? EXIT_RUN : EXIT_OK;
}

/** `birdie db migrate`: applies pending migrations (PostgreSQL: in one transaction, under an advisory lock). */
export async function dbMigrateCommand({ io, values }: CommandContext): Promise<number> {
  const status = await reportingFailure({ io, values }, () => databaseStatus(io, values, true));
  print(io, values, status);
  return EXIT_OK;
}

/**
 * With `--json`, a store failure (the server unreachable, a migration refused) still prints an object a script can
 * parse, as `birdie doctor --json` does: `ok` false and the store's error. The sentence a person reads follows on
 * stderr, with the same exit code.
 */
async function reportingFailure(
  { io, values }: Pick<CommandContext, 'io' | 'values'>,
  fn: () => Promise<DatabaseStatus>,
): Promise<DatabaseStatus> {
  try {
    return await fn();
  } catch (error) {
    const cause = error instanceof Error ? error.cause : undefined;
    if (values.json && isStoreErrorLike(cause)) {
      const { hint } = cause as { hint?: string };
      const failure = { code: cause.code, message: cause.message, ...(hint ? { hint } : {}) };
      write(io.stdout, JSON.stringify({ ok: false, error: failure }));
    }
    throw error;
  }
}

function print(io: CommandContext['io'], values: CommandContext['values'], s: DatabaseStatus): void {
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
