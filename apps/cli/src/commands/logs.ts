import { EXIT_OK, UsageError, write } from '../io.js';
import type { CommandContext } from '../main.js';
import { formatMs } from '../render/events.js';
import { styler, table } from '../render/style.js';
import { checkUserId, findSession, openUserStore, userIdOf } from '../runtime.js';

/** `birdie logs`: the run log, newest first, one row per run with its tool calls. */
export async function logsCommand({ io, values }: CommandContext): Promise<number> {
  const limit = values.n === undefined ? 20 : Number(values.n);
  if (!Number.isInteger(limit) || limit <= 0)
    throw new UsageError(`-n must be a positive integer, got "${values.n}"`);
  const store = await openUserStore(io);
  try {
    const userId = await checkUserId(userIdOf(io, values));
    const sessionId =
      typeof values.session === 'string' ? (await findSession(store, values.session, userId)).id : undefined;
    // The user's own runs, as `sessions list` shows only theirs; a session narrows them to its runs.
    const runs = await store.runs.list({ userId, limit, ...(sessionId ? { sessionId } : {}) });
    if (values.json) {
      for (const run of runs) write(io.stdout, JSON.stringify(run));
      return EXIT_OK;
    }
    if (runs.length === 0) {
      write(io.stdout, 'No runs logged yet.');
      return EXIT_OK;
    }
    const style = styler(io.stdout, io.env);
    const statusColor = (s: string) => style(s === 'ok' ? 'green' : s === 'running' ? 'yellow' : 'red', s);
    io.stdout.write(
      table(
        runs.map((r) => [
          r.startedAt.toISOString().slice(0, 19).replace('T', ' '),
          r.sessionId,
          statusColor(r.status),
          r.durationMs === undefined ? '-' : formatMs(r.durationMs),
          `↑${r.inputTokens} ↓${r.outputTokens}`,
          r.model ?? '-',
          [
            // ✗ failed; ? started but never reported back (the run died): it may have had its effect.
            r.toolCalls
              .map(
                (t) =>
                  `${t.name}${t.status === 'error' ? '✗' : t.resultUnknown || t.status === 'started' ? '?' : ''}`,
              )
              .join(' '),
            r.error ? style('red', r.error.split('\n')[0]!.slice(0, 80)) : '',
          ]
            .filter(Boolean)
            .join('  '),
        ]),
        ['STARTED (UTC)', 'SESSION', 'STATUS', 'TIME', 'TOKENS', 'MODEL', 'TOOLS / ERROR'].map((h) =>
          style('bold', h),
        ),
      ),
    );
    return EXIT_OK;
  } finally {
    await store.close();
  }
}
