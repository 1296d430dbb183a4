import { historyJson } from '@birdie/runtime/history-json';
import {
  deleteSession,
  listSessions,
  readSession,
  renameSession,
  repairSession,
} from '@birdie/runtime/session-admin';
import { storeFailureText } from '@birdie/runtime/store-failure';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_RUN, write } from '../io.js';
import { plural } from '@birdie/terminal/diagnostics';
import { formatHistory } from '@birdie/terminal/history';
import { printList } from '../render/list.js';
import { styler } from '@birdie/terminal/style';
import { terminalText } from '@birdie/terminal/terminal-text';

export async function sessionsListCommand({ io, values }: CommandContext): Promise<number> {
  const { userId, sessions } = await listSessions(io, values);
  return printList(io, values, sessions, {
    empty: `No sessions for ${userId} yet. Start one with \`birdie\` or \`birdie run "…"\`.`,
    header: ['ID', 'TURNS', 'TOKENS', 'UPDATED', 'TITLE'],
    row: (s) => [
      s.id,
      String(s.turns),
      `↑${s.inputTokens} ↓${s.outputTokens}`,
      s.updatedAt.toISOString().slice(0, 16).replace('T', ' '),
      terminalText(s.title ?? ''),
    ],
  });
}

export async function sessionsShowCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const { session, history } = await readSession(io, values, positionals[0]!);
  const { messages, damage, subagents, compactions = [] } = history;
  // Damage never hides what reads fine: everything before it is shown, and the problem is named on stderr.
  if (damage) write(io.stderr, `birdie: ${storeFailureText(damage, session.id)}`);
  if (values.json) {
    for (const message of historyJson(history)) write(io.stdout, JSON.stringify(message));
    return damage ? EXIT_RUN : EXIT_OK;
  }
  const style = styler(io.stdout, io.env);
  write(
    io.stdout,
    style(
      'dim',
      `session ${session.id} · user ${session.userId} · ${plural(session.turns, 'turn')} · ↑${session.inputTokens} ↓${session.outputTokens} tok${compactions.length ? ` · ${plural(compactions.length, 'compaction')}` : ''}${session.title ? ` · ${terminalText(session.title)}` : ''}`,
    ),
  );
  io.stdout.write(
    formatHistory(messages, style, undefined, subagents, { compactions, full: values.full === true }) ||
      'No messages yet.\n',
  );
  return damage ? EXIT_RUN : EXIT_OK;
}

/** `birdie sessions rename ID TITLE`: the title shown in lists and the resume picker. */
export async function sessionsRenameCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const { session, title } = await renameSession(io, values, positionals[0]!, positionals.slice(1).join(' '));
  write(io.stdout, `Renamed session ${session.id}: ${title}`);
  return EXIT_OK;
}

export async function sessionsDeleteCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const session = await deleteSession(io, values, positionals[0]!);
  write(io.stdout, `Deleted session ${session.id} (history, grants, run log and data folder).`);
  return EXIT_OK;
}

/** `birdie sessions repair ID`: the session continues from its last good step (damaged records set aside). */
export async function sessionsRepairCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const { session, report } = await repairSession(io, values, positionals[0]!);
  if (values.json) {
    write(io.stdout, JSON.stringify(report));
    return EXIT_OK;
  }
  if (report.quarantined.length === 0) {
    write(io.stdout, `Session ${session.id} has no damaged records; nothing to repair.`);
    return EXIT_OK;
  }
  write(
    io.stdout,
    `Repaired session ${session.id}: ${report.quarantined.length} record(s) set aside (damaged, or written after the damage); it continues from ${report.head ? `step ${report.head}` : 'its start'}.`,
  );
  for (const r of report.quarantined)
    write(io.stdout, `  ${r.table}${r.checkpointId ? ` step ${r.checkpointId}` : ''}: ${r.reason}`);
  return EXIT_OK;
}
