import { type DatabaseStatus, databaseStatus } from '@birdie/runtime/database-status';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_RUN, write } from '../io.js';

/** `birdie db status`: the schema version of the database birdie would use, and what is pending. */
export async function dbStatusCommand({ io, values }: CommandContext): Promise<number> {
  // A failure with `--json` is printed as JSON by `main`, as every `--json` command's.
  const status = await databaseStatus(io, values, false);
  print(io, values, status);
  return status.pending.length > 0 ? EXIT_RUN : EXIT_OK;
}

/** `birdie db migrate`: applies pending migrations (PostgreSQL: in one transaction, under an advisory lock). */
export async function dbMigrateCommand({ io, values }: CommandContext): Promise<number> {
  const status = await databaseStatus(io, values, true);
  print(io, values, status);
  return EXIT_OK;
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
