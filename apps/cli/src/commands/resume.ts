import { checkUserId, openUserStore, userIdOf } from '@birdie/runtime/runtime';
import type { Session } from '@birdie/store';
import { EXIT_OK, UsageError, write } from '../io.js';
import type { CommandContext } from '../main.js';
import { plural } from '../render/diagnostics.js';
import { replCommand } from './repl.js';

const when = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

/** One picker line: title, date, turns and tokens. */
export function sessionLabel(s: Session): string {
  return `${s.title ?? '(untitled)'} · ${when(s.updatedAt)} · ${plural(s.turns, 'turn')} · ${s.inputTokens + s.outputTokens} tok`;
}

async function userSessions(ctx: CommandContext): Promise<Session[]> {
  const userId = await checkUserId(userIdOf(ctx.io, ctx.values));
  const store = await openUserStore(ctx.io);
  try {
    return await store.sessions.list(userId);
  } finally {
    await store.close();
  }
}

/** `birdie resume`: a picker of the user's sessions (newest first, filtered as one types), then the REPL on it. */
export async function resumeCommand(ctx: CommandContext): Promise<number> {
  const { io } = ctx;
  if (!io.stdin.isTTY || !io.stdout.isTTY)
    throw new UsageError(
      'the session picker needs a terminal. Use `birdie sessions list` and `birdie --session-id ID` (or `birdie run --session-id ID "…"`).',
    );
  const sessions = await userSessions(ctx);
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

/** `birdie --continue`: the user's latest session id; a usage error when there is none. */
export async function latestSessionId(ctx: CommandContext): Promise<string> {
  const [latest] = await userSessions(ctx);
  if (!latest) throw new UsageError('no session to continue yet. Start one with `birdie`.');
  return latest.id;
}
