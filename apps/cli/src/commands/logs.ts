import type { ToolCallRecord } from '@birdie/store';
import { EXIT_OK, UsageError, write } from '../io.js';
import type { CommandContext } from '../main.js';
import { formatMs } from '../render/events.js';
import { styler, table } from '../render/style.js';
import { checkUserId, findSession, openUserStore, userIdOf } from '../runtime.js';

type LoggedCall = ToolCallRecord & { subagent?: LoggedCall[] };

/**
 * Calls a subagent made (ids `<child thread>/<call id>`) moved under the `task` call whose child thread ran them, as
 * `subagent`; nested subagents the same way.
 */
function nestSubagentCalls(
  calls: readonly ToolCallRecord[],
  sessionId: string,
  childOf: (parentThread: string, callId: string) => string,
): LoggedCall[] {
  const byThread = new Map<string, ToolCallRecord[]>();
  const own: ToolCallRecord[] = [];
  for (const call of calls) {
    const slash = call.callId?.lastIndexOf('/') ?? -1;
    if (call.callId && slash > 0) {
      const thread = call.callId.slice(0, slash);
      byThread.set(thread, [...(byThread.get(thread) ?? []), call]);
    } else own.push(call);
  }
  // `prefix`: how the calls of `thread` are journaled (`child` for a subagent, `child/grandchild` below it).
  const nest = (list: ToolCallRecord[], thread: string, prefix: string): LoggedCall[] =>
    list.map((call) => {
      if (call.name !== 'task' || !call.callId) return call;
      const local = prefix ? call.callId.slice(prefix.length + 1) : call.callId;
      const child = childOf(thread, local);
      const key = prefix ? `${prefix}/${child}` : child;
      const inner = byThread.get(key);
      return inner ? { ...call, subagent: nest(inner, child, key) } : call;
    });
  return nest(own, sessionId, '');
}

/** `read_file web_search✗ task(web_search run_bash?)`: ✗ failed; ? started, never reported back (may have run). */
function callsText(calls: readonly LoggedCall[]): string {
  return calls
    .map((t) => {
      const mark = t.status === 'error' ? '✗' : t.resultUnknown || t.status === 'started' ? '?' : '';
      return `${t.name}${mark}${t.subagent?.length ? `(${callsText(t.subagent)})` : ''}`;
    })
    .join(' ');
}

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
    const listed = await store.runs.list({ userId, limit, ...(sessionId ? { sessionId } : {}) });
    // A subagent's calls were journaled as `<child thread>/<call id>`: they go under the task call that ran them.
    const { childThreadId } = await import('@birdie/graph');
    const runs = listed.map((run) => ({
      ...run,
      toolCalls: nestSubagentCalls(run.toolCalls, run.sessionId, childThreadId),
    }));
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
          `${r.model ?? '-'}${r.agent ? ` (${r.agent.name}@${r.agent.digest.slice(0, 8)})` : ''}`,
          [
            // ✗ failed; ? started but never reported back (the run died): it may have had its effect.
            callsText(r.toolCalls),
            r.error ? style('red', r.error.split('\n')[0]!.slice(0, 80)) : '',
          ]
            .filter(Boolean)
            .join('  '),
        ]),
        ['STARTED (UTC)', 'SESSION', 'STATUS', 'TIME', 'TOKENS', 'MODEL (AGENT)', 'TOOLS / ERROR'].map((h) =>
          style('bold', h),
        ),
      ),
    );
    return EXIT_OK;
  } finally {
    await store.close();
  }
}
