import { userSessions } from '@birdie/runtime/user-sessions';
import type { Session } from '@birdie/store';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, UsageError, write } from '../io.js';
import { plural } from '@birdie/terminal/diagnostics';
import { replCommand } from './repl.js';

const when = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

/** One picker line: title, date, turns and tokens. */
export function sessionLabel(s: Session): string {
  return `${s.title ?? '(untitled)'} · ${when(s.updatedAt)} · ${plural(s.turns, 'turn')} · ${s.inputTokens + s.outputTokens} tok`;
}

/** `birdie resume`: a picker of the user's sessions (used last first, filtered as one types), then the REPL on it. */
export async function resumeCommand(ctx: CommandContext): Promise<number> {
  const { io } = ctx;
  if (!io.stdin.isTTY || !io.stdout.isTTY)
    throw new UsageError(
      'the session picker needs a terminal. Use `birdie sessions list` and `birdie --session-id ID` (or `birdie run --session-id ID "…"`).',
    );
  const sessions = await userSessions(io, ctx.values);
  if (sessions.length === 0) {
    write(io.stdout, 'No sessions to resume yet. Start one with `birdie`.');
    return EXIT_OK;
  }
  const prompts = await import('@clack/prompts');
  const picked = await prompts.autocomplete({
    message: 'Resume which session? (type to filter)',
    options: sessions.map((s) => ({ value: s.id, label: sessionLabel(s), hint: s.id })),
    maxItems: 10,
    filter: (search, option) =>
      `${option.label ?? ''} ${option.hint ?? ''}`.toLowerCase().includes(search.trim().toLowerCase()),
    input: io.stdin,
    output: io.stdout,
  });
  if (prompts.isCancel(picked)) {
    write(io.stdout, 'Nothing resumed.');
    return EXIT_OK;
  }
  return replCommand({ ...ctx, values: { ...ctx.values, 'session-id': picked } });
}
