import { withStore } from '@birdie/runtime/store-command';
import { unopenedStoreReport } from '@birdie/runtime/store-failure';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_RUN, write } from '../io.js';
import { printFailureJson } from '../render/failure-json.js';
import { styler } from '@birdie/terminal/style';

/**
 * `birdie doctor`: checks the whole store — SQLite's integrity check, then every stored record decoded against its
 * checksum — and what every run needs from the settings (the config files, the `model` setting resolved as a run
 * resolves it, the project's settings file), and says what to do. Exit 1 when anything is wrong.
 */
export async function doctorCommand({ io, values }: CommandContext): Promise<number> {
  try {
    return await checkStore({ io, values });
  } catch (error) {
    // The worst damage of all (a store that does not even open) still gets a report a script can parse, its
    // `error` as every `--json` command's failure has it; the sentence a person reads follows on stderr, with exit 1.
    if (values.json) printFailureJson(io.stdout, error, unopenedStoreReport(error));
    throw error;
  }
}

async function checkStore({ io, values }: Pick<CommandContext, 'io' | 'values'>): Promise<number> {
  const { settingsChecks } = await import('@birdie/runtime/settings-doctor');
  // A check that could not even run is a problem to report, not a reason to skip the store's.
  const settings = await settingsChecks(io, values).catch((error: unknown) => [
    { check: 'config' as const, severity: 'error' as const, message: (error as Error).message },
  ]);
  const settingsOk = settings.every((check) => check.severity !== 'error');
  return withStore(io, false, async (store) => {
    const report = await store.doctor();
    const ok = report.ok && settingsOk;
    if (values.json) {
      write(io.stdout, JSON.stringify({ ...report, ok, settings }));
      return ok ? EXIT_OK : EXIT_RUN;
    }
    const style = styler(io.stdout, io.env);
    write(io.stdout, `store: ${report.location}`);
    if (report.readOnly)
      write(io.stdout, style('yellow', `read-only: ${report.readOnly.message} (${report.readOnly.hint})`));
    const integrity = report.integrity.length === 1 && report.integrity[0] === 'ok';
    write(
      io.stdout,
      `integrity check: ${integrity ? style('green', 'ok') : style('red', report.integrity.join('; '))}`,
    );
    write(
      io.stdout,
      `records: ${report.checked} checked, ${report.damaged.length ? style('red', `${report.damaged.length} damaged`) : style('green', 'none damaged')}`,
    );
    for (const session of report.sessions) {
      write(
        io.stdout,
        `  session ${session.sessionId}${session.userId ? ` (user ${session.userId})` : ''}: ${session.damaged} damaged record(s), ${session.unreadableSteps} unreadable step(s); last good step ${session.lastGoodCheckpointId ?? 'none'}`,
      );
    }
    for (const record of report.damaged.slice(0, 20)) {
      const where = [
        record.table,
        record.checkpointId && `step ${record.checkpointId}`,
        record.taskId && `task ${record.taskId}`,
      ]
        .filter(Boolean)
        .join(', ');
      write(io.stdout, style('dim', `    ${record.sessionId}: ${where}: ${record.reason}`));
    }
    if (report.damaged.length > 20)
      write(io.stdout, style('dim', `    … ${report.damaged.length - 20} more (--json lists all)`));
    for (const advice of report.advice) write(io.stdout, `→ ${advice}`);
    // The store's advice names what to do; these are the commands that do it.
    for (const session of report.sessions)
      write(
        io.stdout,
        `→ birdie sessions repair ${session.sessionId}${session.userId ? ` --user ${session.userId}` : ''}   (or: birdie sessions delete ${session.sessionId})`,
      );
    // What a run needs from the settings: a problem here stops every run (exit 2) whatever the store holds.
    for (const { check, severity, message } of settings)
      write(
        io.stdout,
        `${check}: ${severity === 'ok' ? style('green', message) : style(severity === 'error' ? 'red' : 'yellow', message)}`,
      );
    write(io.stdout, ok ? style('green', 'No problems found.') : style('red', 'Problems found.'));
    return ok ? EXIT_OK : EXIT_RUN;
  });
}
