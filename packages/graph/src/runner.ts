import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import {
  type BaseCheckpointSaver,
  Command,
  GraphRecursionError,
  type StateSnapshot,
} from '@langchain/langgraph';
import { bindDecisions, isApprovalInterrupt, validateDecisions } from './approvals.js';
import { CallsInProgress } from './cancelled-calls.js';
import { Deadline } from './deadline.js';
import { AgentError, type AgentErrorCode } from './errors.js';
import { EventMapper } from './events.js';
import type { AgentGraph } from './graph.js';
import { newId } from './ids.js';
import { McpTurnNotices, withNotices } from './mcp-turn.js';
import { OpenQuestions } from './open-questions.js';
import { interruptAnswered } from './pending-answer.js';
import {
  type ChildOutcome,
  type ChildRequest,
  childJournal,
  childThreadId,
  type SubagentRuns,
} from './subagents.js';
import { STOPPED_BY_CLOSE, stopNoteOf } from './stop-reason.js';
import { archiveCompacted } from './thread-archive.js';
import type { TurnContext } from './turn-context.js';
import type { AgentEvent, ApprovalDecision, ApprovalRequest, DoneStatus, RunError } from './types.js';

/**
 * How long a stopped run waits for its running calls to end before it answers them: a process is sent SIGTERM at the
 * abort and SIGKILL after its grace (2 s by default). A call still running then stays "started, result unknown" in the
 * journal. Below a server drain's wait for its cancelled turns (5 s), so the turn still ends within it.
 */
const CUT_OFF_END_WAIT_MS = 3_000;

/** A turn's context before its run starts (each run gets its own clock). */
export type TurnBase = Omit<TurnContext, 'deadline'>;

export interface RunnerOptions {
  checkpointer: BaseCheckpointSaver;
  recursionLimit: number;
  maxSubagentDepth: number;
}

const ERROR_CODES: ReadonlySet<string> = new Set<AgentErrorCode>([
  'bad-thread-id',
  'bad-option',
  'busy',
  'nothing-to-resume',
  'missing-decision',
  'unknown-decision',
  'model-error',
  'recursion-limit',
  'aborted',
  'mcp-unavailable',
  'mcp-sdk-missing',
  'closed',
  'unknown-agent',
  'max-turns',
  'agent-timeout',
  'subagent-depth',
  'compaction-failed',
  'run-failed',
  'internal',
]);

/** An `error` event as a thrown `AgentError`; a foreign code (a store's `disk-full`) becomes `run-failed`. */
export function errorFromEvent(error: RunError): AgentError {
  return ERROR_CODES.has(error.code)
    ? new AgentError(error.code as AgentErrorCode, error.message)
    : new AgentError('run-failed', `${error.message} (${error.code})`, { cause: error });
}

function isAbort(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  const e = error as { name?: string; code?: string } | null;
  return e?.name === 'AbortError' || e?.code === 'aborted';
}

/**
 * A subagent's graph run must not join its parent's: inside a node, LangGraph would take the parent task's
 * configuration (checkpoint namespace, scratchpad, interrupts) from async-local storage and nest the child into it.
 * Run it with that storage empty, as a root run on a thread of its own.
 */
function detached<T>(fn: () => Promise<T>): Promise<T> {
  return AsyncLocalStorageProviderSingleton.getInstance().run(undefined as never, fn);
}

type StepOptions = NonNullable<Parameters<AgentGraph['_streamIterator']>[1]>;

/**
 * The run's `[mode, chunk]` items, read from the generator that LangGraph's `stream()` wraps (`_streamIterator`).
 * `stream()` passes each item through an async-local-storage hop, a race with the signal and two web streams (some 30
 * promises an item, a sixth of a round trip's CPU). What its cancel did is done here: stopping early aborts the run's
 * signal (the nodes stop) before the graph's loop is awaited.
 */
function graphSteps(
  graph: AgentGraph,
  input: unknown,
  deadline: Deadline,
  options: StepOptions,
): AsyncIterableIterator<[string, unknown]> {
  // `_streamIterator` is marked internal in LangGraph: should a later release rename it, the run goes through the
  // public `stream()` (its iterator is an async generator too), slower but the same events.
  const steps = (
    typeof graph._streamIterator === 'function'
      ? graph._streamIterator(input as never, options)
      : streamed(graph, input, options)
  ) as AsyncGenerator<[string, unknown]>;
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next: () => steps.next(),
    return: (value?: unknown) => {
      deadline.stop();
      return steps.return(value as never);
    },
  };
}

async function* streamed(graph: AgentGraph, input: unknown, options: StepOptions): AsyncGenerator<unknown> {
  yield* await graph.stream(input as never, options as never);
}

/**
 * Runs threads: a session's turns and resumes, and the subagents' threads its `task` calls start — the same graph,
 * the same event mapping, one `done` per run. Implements what the nodes need to run subagents.
 */
export class Runner implements SubagentRuns {
  graph!: AgentGraph;
  readonly running = new Set<string>();
  /** The deadlines of the runs in progress, so closing the agent stops them. */
  readonly #deadlines = new Set<Deadline>();
  /** The approval questions this process saw left open, per thread (see `OpenQuestions`). */
  readonly #openQuestions = new OpenQuestions();
  closed = false;

  constructor(private readonly options: RunnerOptions) {}

  /** No run starts from now on; the runs in progress (subagents' too) stop and end with an `error` `closed`. */
  close(): void {
    this.closed = true;
    for (const deadline of this.#deadlines) deadline.close();
  }

  async *run(
    input: unknown,
    threadId: string,
    base: TurnBase,
    signal?: AbortSignal,
  ): AsyncGenerator<AgentEvent> {
    if (this.closed) throw new AgentError('closed', 'The agent is closed.');
    if (this.running.has(threadId))
      throw new AgentError('busy', `Thread ${threadId} already has a run in progress.`);
    this.running.add(threadId);
    const deadline = new Deadline();
    deadline.follow(signal);
    this.#deadlines.add(deadline);
    const partialAnswer = { text: '' };
    // Fresh for each stream: a subagent's calls are its own thread's, never its parent's.
    const callsInProgress = new CallsInProgress();
    // Fresh for each run too: what a server says between this run's calls is this run's, and only while it runs.
    const mcpTurn = new McpTurnNotices();
    const unansweredApprovals = this.#openQuestions.take(threadId);
    const asked = new Set<string>();
    const context: TurnContext = {
      ...base,
      deadline,
      partialAnswer,
      callsInProgress,
      mcpTurn,
      ...(unansweredApprovals ? { unansweredApprovals } : {}),
    };
    const mapper = new EventMapper(base.path);
    let status: 'ok' | 'error' | 'aborted' = 'ok';
    let stream: AsyncIterableIterator<[string, unknown]> | undefined;
    let compacted = false;
    try {
      stream = graphSteps(this.graph, input, deadline, {
        configurable: { thread_id: threadId },
        context,
        recursionLimit: this.options.recursionLimit,
        // Each step's checkpoint is on disk before the next step starts: the model's tool calls are stored before
        // any tool runs, so a crash can never lose a call whose side effect already happened.
        durability: 'sync',
        streamMode: ['updates', 'custom'],
        // The deadline's signal also aborts with the application's (see `Deadline.follow`).
        signal: deadline.signal,
      });
      for await (const item of withNotices(stream, mcpTurn)) {
        if ('notice' in item) yield mapper.stamp({ type: 'mcp-notice', notice: item.notice });
        else
          for (const event of mapper.map(...item.value)) {
            if (event.type === 'compaction' && (event.agent?.length ?? 0) <= 1) compacted = true;
            if (event.type === 'approval-request')
              for (const request of event.requests) asked.add(request.id);
            yield event;
          }
      }
      stream = undefined;
      // A session's turn that compacted its thread archives the summarised part once the turn is done, so the
      // next start decodes only what follows it. Best effort: left undone, the thread is as it was before.
      if (compacted && base.path.length === 0 && !mapper.interrupted)
        await archiveCompacted(this.graph, threadId).catch(() => false);
    } catch (error) {
      stream = undefined;
      // Closed, unless the caller's own signal aborted first: a subagent's signal is its parent's, which the close
      // aborts too, so once the runner is closed every run of it ends `closed`.
      if (deadline.closed && (!signal?.aborted || this.closed)) {
        // As a cancel: what streamed is kept and the calls cut off are answered, so the thread can go on later.
        status = 'error';
        if (partialAnswer.text) await this.#keepPartialAnswer(threadId, partialAnswer.text);
        for (const call of await this.#answerCutOffCalls(threadId, callsInProgress, STOPPED_BY_CLOSE))
          yield mapper.stamp({
            type: 'tool-end',
            ok: false,
            outcome: 'cancelled',
            stopNote: STOPPED_BY_CLOSE,
            ...call,
          });
        yield mapper.stamp({
          type: 'error',
          error: {
            code: 'closed',
            message: 'The agent was closed during this run; its running tools were stopped.',
          },
        });
      } else if (deadline.fired && !signal?.aborted) {
        status = 'error';
        const timeout = deadline.error();
        yield mapper.stamp({ type: 'error', error: { code: timeout.code, message: timeout.message } });
      } else if (isAbort(error, signal)) {
        status = 'aborted';
        if (partialAnswer.text) await this.#keepPartialAnswer(threadId, partialAnswer.text);
        // Said as the abort's reason says it (the user's cancel, a server's shutdown).
        const stopNote = stopNoteOf(signal?.reason);
        for (const call of await this.#answerCutOffCalls(threadId, callsInProgress, stopNote))
          yield mapper.stamp({ type: 'tool-end', ok: false, outcome: 'cancelled', stopNote, ...call });
      } else {
        status = 'error';
        yield mapper.stamp({ type: 'error', error: describeRunError(error, this.options.recursionLimit) });
      }
    } finally {
      // Its consumer stopped reading (left its loop): the graph's run stops too, before the thread is free again.
      await stream?.return?.();
      deadline.clear();
      this.#deadlines.delete(deadline);
      mcpTurn.end();
      this.running.delete(threadId);
    }
    // A session's own thread only: a subagent's question is its parent's `task` call, answered as that call.
    if (mapper.interrupted && asked.size > 0 && base.path.length === 0) {
      this.#openQuestions.remember(threadId, asked);
    }
    // Said after the graph's last step, before the run ended.
    for (const notice of mcpTurn.take()) yield mapper.stamp({ type: 'mcp-notice', notice });
    yield mapper.stamp({
      type: 'done',
      status: status === 'ok' && mapper.interrupted ? 'interrupted' : status,
    });
  }

  /**
   * A cancelled model call's streamed text is kept in the thread as the agent's message, marked `cancelled` in its
   * metadata: the user saw it, so the history shows it, and the next turn's model knows what it had said. Best
   * effort: a store that cannot write it loses only that text.
   */
  async #keepPartialAnswer(threadId: string, text: string): Promise<void> {
    const message = new AIMessage({
      id: newId('cancelled'),
      content: text,
      response_metadata: { cancelled: true },
    });
    await this.graph
      .updateState({ configurable: { thread_id: threadId } }, { messages: [message] }, 'agent')
      .catch(() => undefined);
  }

  /**
   * The tools step the user cancelled never completes, so its calls would reach the next turn unanswered (and be
   * repaired as "crash or cancel"). Each gets its answer now: a finished call its result, a running one what it
   * printed so far, marked stopped as `note` says (cancelled by the user, the server shut down); approvals for the
   * session given for them are kept. The running ones are waited for first, briefly (`CUT_OFF_END_WAIT_MS`): the
   * stop aborted them, and one that ended has its end journaled before the run ends. Best effort, like the partial
   * answer: a store that cannot write it leaves the calls to the repair. Returns the cancelled calls, for their
   * `tool-end` events.
   */
  async #answerCutOffCalls(threadId: string, calls: CallsInProgress, note: string) {
    await calls.stopped(CUT_OFF_END_WAIT_MS);
    const { messages, sessionApprovals, cancelled } = calls.settle(note);
    if (messages.length === 0 && sessionApprovals.length === 0) return [];
    const update = { messages, ...(sessionApprovals.length > 0 ? { sessionApprovals } : {}) };
    try {
      await this.graph.updateState({ configurable: { thread_id: threadId } }, update, 'tools');
    } catch {
      return [];
    }
    return cancelled;
  }

  /** True when the thread's open interrupt was already answered by a resume whose process stopped mid-way. */
  async #answeredBeforeStop(threadId: string): Promise<boolean> {
    const tuple = await this.options.checkpointer.getTuple({
      configurable: { thread_id: threadId, checkpoint_ns: '' },
    });
    return interruptAnswered(tuple?.pendingWrites ?? []);
  }

  async pendingApprovals(threadId: string, snapshot?: StateSnapshot): Promise<ApprovalRequest[]> {
    const state = snapshot ?? (await this.graph.getState({ configurable: { thread_id: threadId } }));
    const requests = state.tasks.flatMap((task) =>
      (task.interrupts ?? []).flatMap((i) => (isApprovalInterrupt(i.value) ? i.value.requests : [])),
    );
    if (requests.length === 0 || (await this.#answeredBeforeStop(threadId))) return [];
    return requests;
  }

  // --- subagents ---------------------------------------------------------------------------------------------

  async start(request: ChildRequest & { prompt: string }): Promise<ChildOutcome> {
    const { ancestors, agent, parent } = request;
    const limit = this.options.maxSubagentDepth;
    if (ancestors.length > limit) {
      throw new AgentError(
        'subagent-depth',
        `Refused: subagents nest at most ${limit} level${limit === 1 ? '' : 's'} deep, and ${[...ancestors, agent].join(' › ')} would be level ${ancestors.length}. Do this part yourself.`,
      );
    }
    if (!parent.snapshot.getAgent?.(agent))
      throw new AgentError('unknown-agent', `There is no agent "${agent}" (any more).`);
    const input = {
      messages: [new HumanMessage({ id: newId('human'), content: request.prompt })],
      sender: agent,
    };
    return this.#drive(request, input, {});
  }

  async resume(request: ChildRequest, decisions: Record<string, ApprovalDecision>): Promise<ChildOutcome> {
    const child = childThreadId(request.parent.threadId, request.callId);
    const pending = await this.pendingApprovals(child);
    validateDecisions(pending, decisions, request.parent.cwd);
    const bound = bindDecisions(pending, decisions);
    return this.#drive(request, new Command({ resume: bound }), bound);
  }

  pending(childThread: string): Promise<ApprovalRequest[]> {
    return this.pendingApprovals(childThread);
  }

  async finalAnswer(threadId: string): Promise<string | undefined> {
    const state = await this.graph.getState({ configurable: { thread_id: threadId } });
    const messages = (state.values as { messages?: unknown[] } | undefined)?.messages ?? [];
    const last = messages.at(-1);
    if (!last || !AIMessage.isInstance(last) || (last.tool_calls?.length ?? 0) > 0) return undefined;
    return last.text;
  }

  /** Runs (or resumes) a subagent's thread, passing its events up, and turns how it ended into the call's outcome. */
  async #drive(
    request: ChildRequest,
    input: unknown,
    decisions: TurnContext['decisions'],
  ): Promise<ChildOutcome> {
    const { parent, ancestors, agent } = request;
    const child = childThreadId(parent.threadId, request.callId);
    const base: TurnBase = {
      snapshot: parent.snapshot,
      approval: parent.approval,
      askRawCommands: parent.askRawCommands,
      cwd: parent.cwd,
      memory: parent.memory,
      decisions,
      toolEnv: parent.toolEnv,
      journal: childJournal(parent.journal, child),
      policyKey: parent.policyKey,
      path: ancestors,
      memoryFiles: parent.memoryFiles,
      memoryStore: parent.memoryStore,
      taskStore: parent.taskStore,
      switchAgent: undefined,
      // A subagent's node: tools see the same files as its parent's (an editor's buffers).
      files: parent.files,
      // A subagent that names no model of its own runs on the turn's.
      model: parent.model,
      // Tools approved for the session hold in its subagents too.
      sessionApprovals: parent.sessionApprovals,
    };
    let done = 'ok' as DoneStatus;
    let failure: RunError | undefined;
    await detached(async () => {
      for await (const event of this.run(input, child, base, parent.signal)) {
        if (event.type === 'done') done = event.status;
        // Its questions become the parent's (the subagents node asks them); its end is the task call's end.
        else if (event.type !== 'approval-request') {
          if (event.type === 'error' && (event.agent?.length ?? 0) <= ancestors.length + 1)
            failure = event.error;
          request.emit(event);
        }
      }
    });
    if (done === 'interrupted') return { suspended: true };
    if (done === 'aborted') throw new AgentError('aborted', `Subagent ${agent} was cancelled.`);
    if (done === 'error') {
      const error = errorFromEvent(failure ?? { code: 'internal', message: 'unknown failure' });
      throw new AgentError(error.code, `Subagent ${agent} failed: ${error.message}`, { cause: error });
    }
    return { content: (await this.finalAnswer(child)) ?? `(${agent} finished without an answer)` };
  }
}

export function describeRunError(error: unknown, limit: number): RunError {
  if (error instanceof GraphRecursionError || (error as { name?: string })?.name === 'GraphRecursionError') {
    return {
      code: 'recursion-limit',
      message: `Stopped after ${limit} steps without a final answer (recursion limit). Ask again with a narrower request, or raise recursionLimit.`,
    };
  }
  if (error instanceof AgentError) return { code: error.code, message: error.message };
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof AgentError) return { code: cause.code, message: cause.message };
  // A typed failure of a part the application gave us (the checkpointer's full disk, a lost lease) keeps its code,
  // and its hint apart, so the application can word it as it words the same failure elsewhere.
  const typed = error as { code?: unknown; hint?: unknown; message?: unknown } | null;
  if (error instanceof Error && typeof typed?.code === 'string' && /^[a-z][a-z0-9-]*$/.test(typed.code)) {
    return {
      code: typed.code,
      message: error.message,
      ...(typeof typed.hint === 'string' ? { hint: typed.hint } : {}),
    };
  }
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}
