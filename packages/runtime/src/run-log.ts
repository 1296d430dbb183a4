import {
  RUN_STATUSES,
  type RunQuery,
  type RunRecord,
  type RunStatus,
  type Store,
  type ToolCallRecord,
} from '@birdie/store';

// The store's own list of statuses, which `--status` is checked against.
export { RUN_STATUSES };

import { UsageError } from './errors.js';
import { checkpointReader } from './history.js';
import { parseIsoTime } from './iso-time.js';
import { findSession } from './runtime.js';

/** A journaled tool call; a subagent's `task` call holds the calls its child run made. */
export type LoggedCall = ToolCallRecord & { subagent?: LoggedCall[] };
/** A run of the log with its tool calls, subagents' calls nested under the `task` call that ran them. */
export type LoggedRun = RunRecord & { toolCalls: LoggedCall[] };

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

/** Runs with their subagents' calls nested (a subagent's calls are journaled as `<child thread>/<call id>`). */
export async function nestedRuns(runs: readonly RunRecord[]): Promise<LoggedRun[]> {
  const { childThreadId } = await import('@birdie/graph');
  return runs.map((run) => ({
    ...run,
    toolCalls: nestSubagentCalls(run.toolCalls, run.sessionId, childThreadId),
  }));
}

const AGO = /^(\d+(?:\.\d+)?)(s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: an ISO date or time, or a duration ago (`30m`, `2h`, `1d`). */
export function parseSince(raw: string, now: number): Date {
  const ago = AGO.exec(raw.trim());
  if (ago) return new Date(now - Number(ago[1]) * UNIT_MS[ago[2]!]!);
  const at = parseIsoTime(raw);
  if (!at.ok)
    throw new UsageError(
      `--since must be an ISO date/time (2026-11-24, 2026-11-24T09:00) or a duration ago (30m, 2h, 1d), got "${raw}"${
        at.problem === 'not ISO 8601' ? '' : ` (${at.problem})`
      }`,
    );
  return at.date;
}

/** The filters of the run log as the user types them (`birdie logs --session … --status …`). */
export interface RunFilters {
  /** A session id (or its unique start), of the user. */
  session?: string;
  agent?: string;
  status?: string;
  /** See `parseSince`. */
  since?: string;
}

/** The filters as a store query (without paging); usage errors for a bad status, date or session. */
export async function runQuery(store: Store, userId: string, filters: RunFilters): Promise<RunQuery> {
  const sessionId =
    filters.session !== undefined ? (await findSession(store, filters.session, userId)).id : undefined;
  if (filters.status !== undefined && !RUN_STATUSES.includes(filters.status as RunStatus))
    throw new UsageError(`--status must be one of ${RUN_STATUSES.join(', ')}, got "${filters.status}"`);
  return {
    userId,
    ...(sessionId ? { sessionId } : {}),
    ...(filters.agent !== undefined ? { agent: filters.agent } : {}),
    ...(filters.status !== undefined ? { status: filters.status as RunStatus } : {}),
    ...(filters.since !== undefined ? { since: parseSince(filters.since, Date.now()) } : {}),
  };
}

/** The newest `limit` runs matching `query`, newest first, with nested subagent calls. */
export async function listRuns(store: Store, query: RunQuery, limit: number): Promise<LoggedRun[]> {
  return nestedRuns(await store.runs.list({ ...query, limit }));
}

/** Whether the user has logged any run at all (to tell "no runs yet" from "none match"). */
export async function hasRuns(store: Store, userId: string): Promise<boolean> {
  return (await store.runs.list({ userId, limit: 1 })).length > 0;
}

/** How often `followRuns` asks the store for new and finished runs. */
const FOLLOW_MS = 500;

/**
 * Reports each run matching `query` as it starts and as it ends (a run shown in `shown` and still running is reported
 * when it ends), until `signal` aborts. A status filter applies to what is reported, not to what is watched.
 */
export async function followRuns(
  store: Store,
  query: RunQuery,
  shown: readonly RunRecord[],
  options: { onRun(run: LoggedRun): void; signal: AbortSignal; pollMs?: number },
): Promise<void> {
  const { onRun, signal } = options;
  let lastId = Math.max(0, ...shown.map((r) => r.id));
  const open = new Set(shown.filter((r) => r.status === 'running').map((r) => r.id));
  const { status: _status, ...started } = query;
  const matches = (run: RunRecord) => !query.status || query.status === run.status;
  while (!signal.aborted) {
    const fresh = await store.runs.list({ ...started, afterId: lastId, limit: 1000 });
    for (const run of (await nestedRuns(fresh)).reverse()) {
      lastId = Math.max(lastId, run.id);
      if (run.status === 'running') open.add(run.id);
      if (matches(run)) onRun(run);
    }
    for (const id of [...open]) {
      const run = await store.runs.get(id, query.userId);
      if (!run || run.status === 'running') continue;
      open.delete(id);
      if (matches(run)) onRun((await nestedRuns([run]))[0]!);
    }
    await new Promise<void>((done) => {
      const timer = setTimeout(done, options.pollMs ?? FOLLOW_MS);
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          done();
        },
        { once: true },
      );
    });
  }
}

/** A run number as typed (`birdie logs show RUN_ID`). */
export function runId(raw: string): number {
  if (!/^[1-9]\d{0,15}$/.test(raw))
    throw new UsageError(`RUN_ID must be a run number (birdie logs), got "${raw}"`);
  return Number(raw);
}

/** One run of the user, with nested subagent calls; usage errors name the way out (another user's, none). */
export async function getRun(store: Store, id: number, userId: string): Promise<LoggedRun> {
  let run: RunRecord | undefined;
  try {
    run = await store.runs.get(id, userId);
  } catch (error) {
    const owner =
      (error as { code?: string; owner?: string }).code === 'not-owner'
        ? (error as { owner?: string }).owner
        : undefined;
    if (owner)
      throw new UsageError(`run ${id} belongs to user ${owner}; pass --user ${owner}`, { cause: error });
    throw error;
  }
  if (!run) throw new UsageError(`no run ${id} of user ${userId}. Run \`birdie logs\` to see the runs.`);
  return (await nestedRuns([run]))[0]!;
}

/**
 * The messages a run added to its thread: those of its last checkpoint after those of the one before it. Read with a
 * bare agent over the store's checkpoints (no model, no skills); rejects when the history is gone or damaged.
 */
export async function runMessages(store: Store, run: RunRecord) {
  const agent = await checkpointReader(store);
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
