import type {
  AgentEvent,
  TurnOptions as AgentTurnOptions,
  ApprovalDecision,
  ApprovalMode,
  ApprovalRequest,
  DoneStatus,
  McpTurnHandlers,
} from '@birdie/graph';
import type { FinishedStatus, LeaseHolder, RunNotice, Session, SessionLease } from '@birdie/store';
import { UsageError } from './errors.js';
import { longTermMemory } from './long-term-memory.js';
import { cachedMemoryFiles, warnUnreadableMemoryFile } from './memory-file-cache.js';
import { memoryFileOptions } from './memory-file-options.js';
import { runNotice } from './run-notices.js';
import { RunUsage } from './run-usage.js';
import type { Runtime } from './runtime.js';
import { deferredSessionFolder, type SessionFolder } from './session-folder.js';
import { acquireSessionLease } from './session-lease.js';
import { isStoreErrorLike } from './store-failure.js';
import { SubagentRuns } from './subagent-runs.js';
import { taskBook } from './task-book.js';
import { settingsToolEnv } from './tool-environment.js';
import { type DenyRefusal, denyRefusalsText, describeDenyRule } from './deny-refusals.js';

/**
 * How a turn ended, in the run log's words: the graph's end, `cancelled` for Ctrl+C or a stop signal (the graph's
 * `aborted`), or `rejected` when it finished but some of its calls did not run: the user rejected them, nobody could be
 * asked, or a deny rule refused them.
 */
export type TurnStatus = Exclude<DoneStatus, 'aborted'> | 'cancelled' | 'rejected';

/**
 * What a turn reports: the agent's events, except that the graph's `done` (one per stream, and a turn with
 * approvals streams several times) becomes exactly one `done` at the very end, carrying the turn's status.
 */
export type TurnEvent = Exclude<AgentEvent, { type: 'done' }> | { type: 'done'; status: TurnStatus };

export interface TurnHandlers {
  onEvent(event: TurnEvent): void;
  /**
   * Called for each approval interrupt; resolves to one decision per request id, or to `undefined` to leave the
   * approval pending: the turn then ends (`interrupted`, with `pending`), and a later turn answers it. `turn.cwd` is
   * the turn's workspace, where a session pattern's path arguments are matched by their real path. `turn.signal` is
   * the turn's: once it aborts the turn ends `cancelled` without waiting for the answer (a front end closes its
   * question then).
   */
  decide(
    requests: ApprovalRequest[],
    turn: { cwd: string; signal: AbortSignal },
  ): Promise<Record<string, ApprovalDecision> | undefined>;
  /** Called once when the session is in use by another process and the turn waits for it. */
  onWait?(holder: LeaseHolder, waitMs: number): void;
  /** Called once the session's lease is held, before anything of the turn is read or written. */
  onLeased?(lease: SessionLease): void;
  /**
   * What the front end does when an MCP server asks during the turn: approve a sampling request and its answer, fill
   * an elicitation form. Absent (unattended runs): sampling is refused, elicitation declined.
   */
  mcp?: McpTurnHandlers;
}

/** What a turn starts from: the user's text, or the decisions for the session's pending approvals. */
export type TurnInput = string | { decisions: Record<string, ApprovalDecision> };

export interface TurnResult {
  status: TurnStatus;
  inputTokens: number;
  outputTokens: number;
  /** What the last model call was sent (birdie's estimate before sending): how much context the conversation takes now. */
  contextTokens: number;
  /** The input limit of the last call's model (0 when no call reported it). */
  contextWindow: number;
  /** The model of the last call, as birdie names it (`vendor:model`). */
  model?: string;
  /** Compactions made during the turn. */
  compactions: number;
  /** The title the session got after this turn (its first exchange). */
  title?: string;
  toolCalls: number;
  /** Calls that did not run because the user rejected them, nobody could be asked, or a deny rule refused them. */
  rejected: number;
  error?: string;
  /** The run log's id of this turn; absent for a turn that never started (stopped while waiting for the session). */
  runId?: number;
  /** The text of the turn's last model message (its own agent's, not a subagent's). */
  answer?: string;
  /** The stable code of `error` (an agent error code, or a store failure such as `disk-full`). */
  errorCode?: string;
  /** What to do about `error`, when its source says (a store failure's hint). */
  errorHint?: string;
  /** The approvals the turn stopped for, when `decide` left them pending. */
  pending?: ApprovalRequest[];
}

export interface TurnOptions {
  /** Default: the runtime's (`rt.approval`: the `approval` flag, else the setting). */
  approval?: ApprovalMode;
  /** Raw commands ask whatever `approval` says (the server's API sessions: the one who approves is not the operator). */
  askRawCommands?: boolean;
  signal: AbortSignal;
  handlers: TurnHandlers;
  /**
   * How long to wait for a session another process is using, ms (0: fail at once with `RuntimeError` `busy`).
   * Default: the runtime's (`rt.waitMs`: the `wait` flag).
   */
  waitMs?: number;
  /**
   * The agent that answers: a name, `null` for the default agent, undefined for whoever spoke last in the session
   * (after a handoff, the agent handed to).
   */
  agent?: string | null;
  /** The tools' working directory for this turn (default: the runtime's). */
  cwd?: string;
  /** Text files through the application (an editor's buffers over ACP), for `node:` tools. */
  files?: AgentTurnOptions['files'];
  /** The turn's model (`/model`): a tier or `vendor:model`; undefined: the session agent's or the provider's. */
  model?: string;
  /** What started the run when nobody typed it (`every 30s`, `watch a.md`), for the run log. */
  trigger?: string;
  /** The run this one belongs to (the run that scheduled the task it runs). */
  parentRunId?: number;
  /**
   * Refuse the run before the model is called: it is logged `rejected` with this error, and nothing runs (an
   * unattended run whose agent's skills are off: nobody is there to enable them, and a run without its tools is a
   * wrong run).
   */
  refusal?: string;
  /** Called with the result just before the run log is written, to add what only the caller knows (a refusal). */
  beforeLog?(result: TurnResult): void;
  /**
   * Drop the session's grants from memory when the turn ends (`birdie serve`: memory follows the sessions running
   * now), while the lease is still this turn's: once it is released, the next turn or skills change of the session may
   * have read them, and forgetting then would take theirs.
   */
  forgetGrants?: boolean;
}

/**
 * One user turn: take the session's lease (one writer per session), stream, answer approval interrupts until the
 * graph finishes, and write the run log (each tool call is journaled by the agent before it starts) and the session's
 * token totals. Throws only when the session cannot be had (`RuntimeError` `busy`, the store's `session-busy` its cause) or the run cannot be logged at all;
 * every failure of the run itself is in the result. Stopped by `signal` while waiting for the lease, the turn ends
 * `cancelled` without having started (no `runId`), its `done` sent.
 */
export async function executeTurn(
  rt: Runtime,
  session: Session,
  input: TurnInput,
  options: TurnOptions,
): Promise<TurnResult> {
  checkTurnOptions(options);
  const { store } = rt;
  options = { ...options, approval: options.approval ?? rt.approval, waitMs: options.waitMs ?? rt.waitMs };
  const waitMs = options.waitMs!;
  let lease: SessionLease;
  try {
    lease = await acquireSessionLease(store, session.id, {
      waitMs,
      signal: options.signal,
      onWait: (holder) => options.handlers.onWait?.(holder, waitMs),
    });
  } catch (error) {
    // Stopped (Ctrl+C, a stop signal) while waiting for the session: a cancelled turn, not a failure. It never
    // started, so nothing was read or written and there is no run in the log (no `runId`).
    if (!options.signal.aborted) throw error;
    options.handlers.onEvent({ type: 'done', status: 'cancelled' });
    return unstartedTurn('cancelled');
  }
  let result: TurnResult | undefined;
  let forgotten = options.forgetGrants !== true;
  const forgetGrants = () => {
    if (forgotten) return;
    forgotten = true;
    rt.forgetGrants(session.id);
  };
  try {
    options.handlers.onLeased?.(lease);
    result = await leasedTurn(rt, session, input, options, lease, forgetGrants);
    return result;
  } finally {
    forgetGrants();
    await lease.release();
    if (result) options.handlers.onEvent({ type: 'done', status: result.status });
  }
}

/** A run refused before its model call (`TurnOptions.refusal`). */
class RefusedTurn extends Error {}

/** The result of a turn that ended before it started: nothing used, no run logged. */
function unstartedTurn(status: TurnStatus): TurnResult {
  return {
    status,
    inputTokens: 0,
    outputTokens: 0,
    contextTokens: 0,
    contextWindow: 0,
    compactions: 0,
    toolCalls: 0,
    rejected: 0,
  };
}

/** The agent that answers a turn: the one named, else whoever spoke last in the session (none without agents). */
async function answeringAgent(rt: Runtime, sessionId: string, named: string | null | undefined) {
  const snapshot = rt.registry.current();
  if (named === null || snapshot.agents.length === 0) return undefined;
  const name = named ?? (await rt.agent.currentAgent(sessionId).catch(() => undefined));
  return name ? snapshot.getAgent(name) : undefined;
}

/**
 * The id of the thread's newest checkpoint, or undefined (none, or it cannot be read: the run log then goes without).
 * The SQLite store's checkpointer reads it without decoding the checkpoint (`headId`); others through `getTuple`.
 */
async function threadHead(store: Runtime['store'], threadId: string): Promise<string | undefined> {
  const saver = store.checkpointer as Runtime['store']['checkpointer'] & {
    headId?(threadId: string): string | undefined;
  };
  try {
    if (typeof saver.headId === 'function') return saver.headId(threadId);
    const id = (await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '' } }))?.config
      .configurable?.checkpoint_id;
    return id ? String(id) : undefined;
  } catch {
    return undefined;
  }
}

async function leasedTurn(
  rt: Runtime,
  session: Session,
  input: TurnInput,
  options: TurnOptions,
  lease: SessionLease,
  /** Before the run's last commit, which may release the lease (see `TurnOptions.forgetGrants`). */
  forgetGrants: () => void,
): Promise<TurnResult> {
  const { store } = rt;
  // The session's own user: one runtime may serve many users (`birdie serve`).
  const userId = session.userId;
  await rt.loadGrants(session.id, userId);
  // The agent named for this turn; else, on a session's first turn, the agent it was created with (`birdie serve`'s
  // POST /v1/sessions { agent }) or the runtime's `agent` flag; after that the thread remembers who speaks.
  const named =
    options.agent !== undefined
      ? options.agent
      : typeof input === 'string' && session.turns === 0
        ? session.agent || rt.agentName
        : undefined;
  const agent = await answeringAgent(rt, session.id, named);
  // What the run is asked to answer with (the agent's tier until a call names the model that answered).
  const model = options.model ?? agent?.model ?? rt.modelName;
  // Where the session's thread stood before the run: its messages are the checkpoints after this one.
  const before = await threadHead(store, session.id);
  const runId = await store.runs.start({
    sessionId: session.id,
    userId,
    model,
    ...(options.trigger ? { trigger: options.trigger } : {}),
    ...(options.parentRunId !== undefined ? { parentRunId: options.parentRunId } : {}),
    ...(before ? { startCheckpointId: before } : {}),
    // Which version of the agent file ran: the log can say exactly what answered.
    ...(agent ? { agent: { name: agent.name, digest: agent.digest } } : {}),
  });
  const journal = await store.runs.journal(runId);
  const subagents = new SubagentRuns(rt, { sessionId: session.id, userId, model, runId });
  const usage = new RunUsage(model);
  // What MCP servers say during the run (during its calls and between them): kept with the run, at their level.
  const notices: RunNotice[] = [];
  // The run log's words for a turn that is `rejected` because deny rules refused calls (it has no error of its own).
  const refusals: DenyRefusal[] = [];
  // Whether the turn's own model answered (a reply or tool calls): then, unless the turn failed, the session has an
  // exchange to title without reading its state back.
  let answered = false;
  const result: TurnResult = {
    runId,
    status: 'ok',
    inputTokens: 0,
    outputTokens: 0,
    contextTokens: 0,
    contextWindow: 0,
    compactions: 0,
    toolCalls: 0,
    rejected: 0,
  };
  const memory = (await store.memory.list(userId)).map((m) => ({ id: String(m.id), content: m.content }));
  let folder: SessionFolder | undefined;
  try {
    if (options.refusal !== undefined) throw new RefusedTurn(options.refusal);
    // Tools learn their session (BIRDIE_SESSION_DIR etc.) per turn; the graph keeps it out of checkpoints. The folder
    // holds what the store holds for the session once the turn's first tool starts, and every tool's changes go back
    // to the store when it ends.
    folder = deferredSessionFolder(store, rt.io.env, session);
    // Memory files (`memory_files`, default AGENTS.md): the user's own, and the project's (working folder up to the
    // repository root) once trusted; kept by the runtime for its next turns in the folder while they are unchanged.
    const cwd = options.cwd ?? rt.cwd;
    const memoryFiles = await cachedMemoryFiles(rt, {
      cwd,
      ...memoryFileOptions(rt),
      project: rt.workspaceTrusted(cwd),
      onUnreadable: (path, why) => warnUnreadableMemoryFile(rt, path, why),
    });
    const turn = {
      memory,
      approval: options.approval,
      ...(options.askRawCommands ? { askRawCommands: true } : {}),
      signal: options.signal,
      cwd,
      toolEnv: { ...folder.env, ...settingsToolEnv(rt.config.settings, rt.io.env) },
      journal: folder.journal(journal),
      memoryFiles,
      memoryStore: longTermMemory(store, userId),
      // The scheduler skill's tools: tasks of this user, remembering this run as the one that scheduled them.
      taskStore: taskBook(rt, {
        runId,
        userId,
        sessionId: session.id,
        grants: () => rt.policy.grants(session.id),
      }),
      ...(options.files ? { files: options.files } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(options.handlers.mcp ? { mcp: options.handlers.mcp } : {}),
    };
    let stream: AsyncIterable<AgentEvent>;
    if (typeof input === 'string') {
      stream = rt.agent.stream(input, {
        threadId: session.id,
        ...turn,
        ...(named !== undefined ? { agent: named } : {}),
      });
    } else {
      result.rejected += Object.values(input.decisions).filter((d) => d.type === 'reject').length;
      stream = rt.agent.resume(session.id, input.decisions, turn);
    }
    // Calls a deny rule refused (`tool-rule` comes before the call's `tool-end`), by call id: what refused them.
    const denied = new Map<string, DenyRefusal>();
    for (;;) {
      let pending: ApprovalRequest[] | undefined;
      let done: DoneStatus = 'ok';
      for await (const event of stream) {
        // Held back: the turn sends one done, after its last stream and its run log.
        if (event.type !== 'done') options.handlers.onEvent(event);
        // Tokens stream through here: only a task call's start and end and a subagent's usage wait for the store.
        const logged = subagents.onEvent(event);
        if (logged) await logged;
        // The answer is the turn's own agent's last words, not a subagent's.
        if (event.type === 'message' && event.message.getType() === 'ai' && (event.agent?.length ?? 0) <= 1) {
          answered = true;
          if (event.message.text) result.answer = event.message.text;
        }
        if (event.type === 'usage') {
          usage.add(event);
          result.inputTokens = usage.inputTokens;
          result.outputTokens = usage.outputTokens;
          // Recorded now: a run whose process is killed later still shows what its finished calls used.
          await store.runs.progress(runId, usage.recorded());
          if (event.context) {
            result.contextTokens = event.context.tokens;
            result.contextWindow = event.context.window;
            result.model = event.model;
          }
        } else if (event.type === 'mcp-notice') {
          notices.push(runNotice(event.notice));
        } else if (event.type === 'compaction') {
          result.compactions++;
        } else if (event.type === 'tool-end') {
          result.toolCalls++;
          // A call a deny rule refused did not run as surely as one the user rejected (those are counted with the
          // decisions): the turn is `rejected`. A call of a tool the session does not have is the model's mistake.
          const refusal = event.outcome === 'refused' ? denied.get(event.id) : undefined;
          if (refusal) {
            result.rejected++;
            refusals.push(refusal);
          }
        } else if (event.type === 'tool-rule') {
          if (event.effect === 'deny')
            denied.set(event.id, { rule: describeDenyRule(event), tool: event.name });
        } else if (event.type === 'approval-request') {
          pending = [...(pending ?? []), ...event.requests];
        } else if (event.type === 'model-approval') {
          // The model's own agent asks while its call runs: the same decide answers it, and the stream goes on.
          // It cannot wait for a later request: no decision now (`birdie serve`) is a refusal.
          const decisions = (await decideUnlessCancelled(options, [event.request], cwd)) ?? {};
          const decision = decisions[event.request.id] ?? {
            type: 'reject',
            message: 'No decision was given.',
            unasked: true,
          };
          if (decision.type === 'reject') result.rejected++;
          event.respond(decision);
        } else if (event.type === 'error' && (event.agent?.length ?? 0) <= 1) {
          // A subagent's failure reaches its parent as the `task` result; only the turn's own errors end it.
          result.error = event.error.message;
          result.errorCode = event.error.code;
          result.errorHint = event.error.hint;
        } else if (event.type === 'done') {
          done = event.status;
        }
      }
      if (done === 'interrupted' && pending?.length && !options.signal.aborted) {
        const decisions = await decideUnlessCancelled(options, pending, cwd);
        // Cancelled while being asked: nothing runs, and the thread says so (the history shows the calls as not run).
        if (options.signal.aborted) {
          result.status = 'cancelled';
          await rt.agent
            .dropPending(session.id, 'the user cancelled the turn at the approval question.')
            .catch(() => undefined); // best effort: the next turn's repair answers them otherwise
          break;
        }
        if (decisions === undefined) {
          result.status = 'interrupted';
          result.pending = pending;
          break;
        }
        result.rejected += Object.values(decisions).filter((d) => d.type === 'reject').length;
        stream = rt.agent.resume(session.id, decisions, turn);
        continue;
      }
      result.status = options.signal.aborted || done === 'aborted' ? 'cancelled' : done;
      break;
    }
  } catch (error) {
    result.status =
      error instanceof RefusedTurn ? 'rejected' : options.signal.aborted ? 'cancelled' : 'error';
    result.error = error instanceof Error ? error.message : String(error);
    if (isStoreErrorLike(error)) {
      result.errorCode = error.code;
      result.errorHint = error.hint;
    }
  }
  try {
    await folder?.sync();
  } catch (error) {
    // The session's files did not reach the store: another worker would not see them. Say so, unless the turn
    // already failed (most likely on the same cause).
    if (result.status !== 'error') {
      result.status = 'error';
      result.error = `the session's files were not saved: ${error instanceof Error ? error.message : String(error)}`;
      if (isStoreErrorLike(error)) {
        result.errorCode = error.code;
        result.errorHint = error.hint;
      }
    }
  }
  if (result.status === 'ok' && result.rejected > 0) result.status = 'rejected';
  options.beforeLog?.(result);
  // Stopped by the user or a signal: `cancelled`; waiting for an approval nobody gave: `interrupted`.
  const logged: FinishedStatus = result.status;
  const after = await threadHead(store, session.id);
  // From the user's words: a turn that answers approvals has none (its session's first turn had them).
  const wantsTitle = session.title === undefined && typeof input === 'string';
  try {
    await subagents.finishAll(logged);
    forgetGrants();
    // The run's end, the session's totals and (unless a title is still to be written under it) the lease's release:
    // one commit.
    await store.runs.finish(runId, {
      status: logged,
      ...usage.recorded(),
      ...(result.answer ? { answer: result.answer } : {}),
      ...(result.error
        ? { error: result.error }
        : logged === 'rejected' && refusals.length > 0
          ? { error: denyRefusalsText(refusals) }
          : {}),
      ...(after ? { endCheckpointId: after } : {}),
      sessionTurn: { inputTokens: result.inputTokens, outputTokens: result.outputTokens },
      ...(wantsTitle ? {} : { release: lease }),
      ...(notices.length > 0 ? { notices } : {}),
    });
  } catch (error) {
    // Another process took the session over (this one paused past its lease): the store ended nothing of this turn
    // (its run is marked died, the session's totals are the new holder's). A failure of the run: in the result.
    // Only `lease-lost`: this turn acquired the lease, and a store that held (or lost) a lease never answers
    // `session-busy` for it, so that code here would be a real fault, thrown as the doc above says.
    if (isStoreErrorLike(error) && error.code === 'lease-lost') {
      result.status = 'error';
      result.error = error.message;
      result.errorCode = error.code;
      result.errorHint = error.hint;
      return result;
    }
    // The turn already failed on the same cause (a full disk): that failure is the one to report.
    if (result.status !== 'error') throw error;
  }
  if (wantsTitle && typeof input === 'string') {
    // A title is a convenience: failing to make one never fails the turn — nor does its module failing to load (a CLI
    // rebuilt under a running server), nor a title step that throws at once rather than rejecting.
    result.title = await import('./session-titles.js')
      .then(({ titleAfterTurn }) =>
        titleAfterTurn(
          rt,
          session,
          input,
          answered && result.status !== 'error' && result.status !== 'cancelled',
        ),
      )
      .catch(() => undefined);
  }
  return result;
}

/**
 * The front end's answer to approval requests, or `undefined` as soon as the turn is cancelled: a question still open
 * (nobody at the screen, a closed tab) must not keep the turn, its run and the session's lease open for ever.
 */
function decideUnlessCancelled(
  options: TurnOptions,
  requests: ApprovalRequest[],
  cwd: string,
): Promise<Record<string, ApprovalDecision> | undefined> {
  const { signal } = options;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const cancelled = () => resolve(undefined);
    signal.addEventListener('abort', cancelled, { once: true });
    options.handlers
      .decide(requests, { cwd, signal })
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', cancelled));
  });
}

/**
 * What `executeTurn` cannot run without, checked before the session is taken: a caller in plain JavaScript gets a usage
 * error naming the option, not a TypeError after the model has answered and a run left `running` in the log.
 */
function checkTurnOptions(options: TurnOptions | undefined): void {
  const o = options as Partial<TurnOptions> | undefined;
  const signal = o?.signal as Partial<AbortSignal> | undefined;
  if (typeof signal?.aborted !== 'boolean' || typeof signal.addEventListener !== 'function')
    throw new UsageError('executeTurn: options.signal must be an AbortSignal (what cancels the turn)');
  if (typeof o?.handlers !== 'object' || o.handlers === null)
    throw new UsageError('executeTurn: options.handlers is required (onEvent and decide)');
  for (const name of ['onEvent', 'decide'] as const)
    if (typeof o.handlers[name] !== 'function')
      throw new UsageError(`executeTurn: options.handlers.${name} must be a function`);
}
