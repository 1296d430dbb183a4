import { formatHistory, readHistory } from '../history.js';
import { EXIT_OK, write } from '../io.js';
import type { CommandContext } from '../main.js';
import { messageJson } from '../render/json-events.js';
import { styler, table } from '../render/style.js';
import { checkUserId, findSession, openUserStore, userIdOf } from '../runtime.js';
import { removeSessionDir } from '../session-dir.js';

export async function sessionsListCommand({ io, values }: CommandContext): Promise<number> {
  const userId = await checkUserId(userIdOf(io, values));
  const store = await openUserStore(io);
  try {
    const sessions = store.sessions.list(userId);
    if (values.json) {
      for (const s of sessions) write(io.stdout, JSON.stringify(s));
      return EXIT_OK;
    }
    if (sessions.length === 0) {
      write(io.stdout, `No sessions for ${userId} yet. Start one with \`birdie\` or \`birdie run "…"\`.`);
      return EXIT_OK;
    }
    const style = styler(io.stdout, io.env);
    io.stdout.write(
      table(
        sessions.map((s) => [
          s.id,
          String(s.turns),
          `↑${s.inputTokens} ↓${s.outputTokens}`,
          s.updatedAt.toISOString().slice(0, 16).replace('T', ' '),
          s.title ?? '',
        ]),
        ['ID', 'TURNS', 'TOKENS', 'UPDATED', 'TITLE'].map((h) => style('bold', h)),
      ),
    );
    return EXIT_OK;
  } finally {
    store.close();
  }
}

export async function sessionsShowCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const store = await openUserStore(io);
  try {
    const session = await findSession(store, positionals[0]!);
    const messages = await readHistory(store, session.id);
    if (values.json) {
      for (const m of messages) write(io.stdout, JSON.stringify(messageJson(m as never)));
      return EXIT_OK;
    }
    const style = styler(io.stdout, io.env);
    write(
      io.stdout,
      style(
        'dim',
        `session ${session.id} · user ${session.userId} · ${session.turns} turns · ↑${session.inputTokens} ↓${session.outputTokens} tok`,
      ),
    );
    io.stdout.write(formatHistory(messages, style) || 'No messages yet.\n');
    return EXIT_OK;
  } finally {
    store.close();
  }
}

export async function sessionsDeleteCommand({ io, positionals }: CommandContext): Promise<number> {
  const store = await openUserStore(io);
  try {
    const session = await findSession(store, positionals[0]!);
    store.sessions.delete(session.id);
    await removeSessionDir(io.env, session.id);
    write(io.stdout, `Deleted session ${session.id} (history, grants, run log and data folder).`);
    return EXIT_OK;
  } finally {
    store.close();
  }
}
