import { checkUserId, findSession, openUserStore, userIdOf } from '@birdie/runtime/runtime';
import type { RunQuery, RunRecord, RunStatus, Store, ToolCallRecord } from '@birdie/store';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_RUN, UsageError, write } from '../io.js';
import { formatMs } from '../render/events.js';
import { styler, table } from '../render/style.js';
import { onStopSignal } from '../stop-signals.js';

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

const STATUSES: readonly RunStatus[] = [
  'running',
  'ok',
  'error',
  'interrupted',
  'rejected',
  'cancelled',
  'died',
];
const AGO = /^(\d+(?:\.\d+)?)(s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: an ISO date or time, or a duration ago (`30m`, `2h`, `1d`). */
export function parseSince(raw: string, now: number): Date {
  const ago = AGO.exec(raw.trim());
  if (ago) return new Date(now - Number(ago[1]) * UNIT_MS[ago[2]!]!);
  const at = /^\d{4}-\d{2}-\d{2}/.test(raw) ? new Date(raw) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime()))
    throw new UsageError(
      `--since must be an ISO date/time (2026-11-24, 2026-11-24T09:00) or a duration ago (30m, 2h, 1d), got "${raw}"`,
    );
  return at;
}

/** The filters of `birdie logs` as a store query (without paging). */
async function queryOf(store: Store, values: CommandContext['values'], userId: string): Promise<RunQuery> {
  const sessionId =
    typeof values.session === 'string' ? (await findSession(store, values.session, userId)).id : undefined;
  if (values.status !== undefined && !STATUSES.includes(values.status as RunStatus))
    throw new UsageError(`--status must be one of ${STATUSES.join(', ')}, got "${String(values.status)}"`);
  return {
    userId,
    ...(sessionId ? { sessionId } : {}),
    ...(typeof values.agent === 'string' ? { agent: values.agent } : {}),
    ...(typeof values.status === 'string' ? { status: values.status as RunStatus } : {}),
    ...(typeof values.since === 'string' ? { since: parseSince(values.since, Date.now()) } : {}),
  };
}

type Shown = RunRecord & { toolCalls: LoggedCall[] };

async function nested(runs: RunRecord[]): Promise<Shown[]> {
  // A subagent's calls were journaled as `<child thread>/<call id>`: they go under the task call that ran them.
  const { childThreadId } = await import('@birdie/graph');
  return runs.map((run) => ({
    ...run,
    toolCalls: nestSubagentCalls(run.toolCalls, run.sessionId, childThreadId),
  }));
}

function rowOf(r: Shown, style: ReturnType<typeof styler>): string[] {
  const statusColor = (s: string) => style(s === 'ok' ? 'green' : s === 'running' ? 'yellow' : 'red', s);
  return [
    String(r.id),
    r.startedAt.toISOString().slice(0, 19).replace('T', ' '),
    r.sessionId,
    statusColor(r.status),
    r.durationMs === undefined ? '-' : formatMs(r.durationMs),
    `↑${r.inputTokens} ↓${r.outputTokens}`,
    `${r.model ?? '-'}${r.agent ? ` (${r.agent.name}@${r.agent.digest.slice(0, 8)})` : ''}`,
    r.trigger ?? '-',
    [
      // ✗ failed; ? started but never reported back (the run died): it may have had its effect.
      callsText(r.toolCalls),
      r.error ? style('red', r.error.split('\n')[0]!.slice(0, 80)) : '',
    ]
      .filter(Boolean)
      .join('  '),
  ];
}

const HEADER = [
  'RUN',
  'STARTED (UTC)',
  'SESSION',
  'STATUS',
  'TIME',
  'TOKENS',
  'MODEL (AGENT)',
  'TRIGGER',
  'TOOLS / ERROR',
];

/** `birdie logs`: the run log, newest first, one row per run with its tool calls; `--follow` streams new ones. */
export async function logsCommand({ io, values }: CommandContext): Promise<number> {
  const limit = values.n === undefined ? 20 : Number(values.n);
  if (!Number.isInteger(limit) || limit <= 0)
    throw new UsageError(`-n must be a positive integer, got "${values.n}"`);
  const store = await openUserStore(io);
  try {
    const userId = await checkUserId(userIdOf(io, values));
    const query = await queryOf(store, values, userId);
    const runs = await nested(await store.runs.list({ ...query, limit }));
    const style = styler(io.stdout, io.env);
    if (values.json) for (const run of runs) write(io.stdout, JSON.stringify(run));
    else if (runs.length === 0 && !values.follow) write(io.stdout, await nothingShown(store, query, values));
    else if (runs.length > 0)
      io.stdout.write(
        table(
          runs.map((r) => rowOf(r, style)),
          HEADER.map((h) => style('bold', h)),
        ),
      );
    if (values.follow) await follow(io, store, query, runs, values.json === true, style);
    return EXIT_OK;
  } finally {
    await store.close();
  }
}

const FILTERS = ['session', 'agent', 'status', 'since'] as const;

/** Why nothing is listed: no run matches the filters given, or the user has no runs at all. */
async function nothingShown(
  store: Store,
  query: RunQuery,
  values: CommandContext['values'],
): Promise<string> {
  const given = FILTERS.filter((name) => typeof values[name] === 'string');
  if (given.length === 0 || (await store.runs.list({ userId: query.userId, limit: 1 })).length === 0)
    return 'No runs logged yet.';
  return `No runs match ${given.map((name) => `--${name} ${String(values[name])}`).join(' ')}; \`birdie logs\` lists every run.`;
}

/** How often `--follow` asks the store for new and finished runs. */
const FOLLOW_MS = 500;

/** Prints each run as it starts and as it ends, until SIGINT or SIGTERM. */
async function follow(
  io: CommandContext['io'],
  store: Store,
  query: RunQuery,
  shown: readonly RunRecord[],
  json: boolean,
  style: ReturnType<typeof styler>,
): Promise<void> {
  let lastId = Math.max(0, ...shown.map((r) => r.id));
  const open = new Set(shown.filter((r) => r.status === 'running').map((r) => r.id));
  const print = (run: Shown) => write(io.stdout, json ? JSON.stringify(run) : rowOf(run, style).join('  '));
  let stopped = false;
  let wake: () => void = () => undefined;
  const stop = onStopSignal(() => {
    stopped = true;
    wake();
  }, ['SIGINT', 'SIGTERM']);
  try {
    while (!stopped) {
      // Runs that started (in the query's filters but its status: a run is shown as it starts and as it ends).
      const { status: _status, ...started } = query;
      const fresh = await store.runs.list({ ...started, afterId: lastId, limit: 1000 });
      for (const run of (await nested(fresh)).reverse()) {
        lastId = Math.max(lastId, run.id);
        if (run.status === 'running') open.add(run.id);
        if (!query.status || query.status === run.status) print(run);
      }
      for (const id of [...open]) {
        const run = await store.runs.get(id, query.userId);
        if (!run || run.status === 'running') continue;
        open.delete(id);
        if (!query.status || query.status === run.status) print((await nested([run]))[0]!);
      }
      await new Promise<void>((done) => {
        wake = done;
        setTimeout(done, FOLLOW_MS);
      });
    }
  } finally {
    stop();
  }
}

/** `birdie logs show RUN_ID`: one run with its messages (read from the checkpoints it references), calls and answer. */
export async function logsShowCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const raw = positionals[0]!;
  if (!/^[1-9]\d{0,15}$/.test(raw))
    throw new UsageError(`RUN_ID must be a run number (birdie logs), got "${raw}"`);
  const store = await openUserStore(io);
  try {
    const userId = await checkUserId(userIdOf(io, values));
    let run: RunRecord | undefined;
    try {
      run = await store.runs.get(Number(raw), userId);
    } catch (error) {
      const owner =
        (error as { code?: string; owner?: string }).code === 'not-owner'
          ? (error as { owner?: string }).owner
          : undefined;
      if (owner)
        throw new UsageError(`run ${raw} belongs to user ${owner}; pass --user ${owner}`, { cause: error });
      throw error;
    }
    if (!run) throw new UsageError(`no run ${raw} of user ${userId}. Run \`birdie logs\` to see the runs.`);
    const [shown] = await nested([run]);
    const messages = await runMessages(store, run).catch(() => undefined);
    if (values.json) {
      const { messageJson } = await import('../render/json-events.js');
      write(
        io.stdout,
        JSON.stringify({
          ...shown,
          ...(messages ? { messages: messages.map((m) => messageJson(m as never)) } : {}),
        }),
      );
      return messages ? EXIT_OK : EXIT_RUN;
    }
    const style = styler(io.stdout, io.env);
    io.stdout.write(
      table(
        [rowOf(shown!, style)],
        HEADER.map((h) => style('bold', h)),
      ),
    );
    if (run.parentRunId !== undefined) write(io.stdout, style('dim', `part of run ${run.parentRunId}`));
    const { formatHistory } = await import('../render/history.js');
    if (messages) io.stdout.write(formatHistory(messages, style) || 'No messages.\n');
    else
      write(
        io.stderr,
        `birdie: the messages of run ${run.id} cannot be read (its session's history is gone or damaged)`,
      );
    if (run.answer) write(io.stdout, `${style('bold', 'answer:')} ${run.answer}`);
    if (run.error) write(io.stdout, `${style('red', 'error:')} ${run.error}`);
    return messages ? EXIT_OK : EXIT_RUN;
  } finally {
    await store.close();
  }
}

/** The messages a run added to its thread: those of its last checkpoint after those of the one before it. */
async function runMessages(store: Store, run: RunRecord) {
  const [{ createAgent }, { loadRegistry, SkillPolicy }, { ScriptedChatModel }] = await Promise.all([
    import('@birdie/graph'),
    import('@birdie/registry'),
    import('@birdie/providers'),
  ]);
  const registry = await loadRegistry({ dirs: [] });
  const agent = createAgent({
    model: new ScriptedChatModel([]),
    registry,
    policy: new SkillPolicy(registry),
    checkpointer: store.checkpointer,
  });
  try {
    const end = await agent.getState(
      run.threadId,
      run.endCheckpointId ? { checkpointId: run.endCheckpointId } : {},
    );
    const start = run.startCheckpointId
      ? (await agent.getState(run.threadId, { checkpointId: run.startCheckpointId })).messages.length
      : 0;
    return end.messages.slice(start);
  } finally {
    await agent.close();
  }
}
