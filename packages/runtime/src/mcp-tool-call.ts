import { randomUUID } from 'node:crypto';
import type { ApprovalReason, DeclaredTool, SessionApproval, ToolResult } from '@birdie/graph/tools';
import type { FinishedStatus, Session, Store } from '@birdie/store';
import { StoreError, withoutHolder } from '@birdie/store/errors';
import { didYouMean } from './did-you-mean.js';
import { UsageError } from './errors.js';
import { longTermMemory } from './long-term-memory.js';
import type { McpHost } from './mcp-host.js';
import { openSessionFolder } from './session-folder.js';
import { isStoreErrorLike } from './store-failure.js';
import { taskBook } from './task-book.js';
import { knownTool } from './tool-call.js';
import { settingsToolEnv } from './tool-environment.js';

/** A call that needs approval, as the MCP client is asked about it. */
export interface McpApprovalQuestion {
  tool: string;
  skill?: string;
  /** What the call would do (`Run shell command: …`, or the tool and its arguments), the call whole. */
  description: string;
  reason: ApprovalReason;
  args: Readonly<Record<string, unknown>>;
  /**
   * What the question may offer beyond once: `session`, the whole tool for the rest of the session (never for a raw
   * shell command, where it would allow every later command in one click — the REPL asks a typed confirmation for
   * that, a form cannot — nor for a call an ask rule asks about); `pattern`, the session rule for this command's kind
   * (`run_bash(git status *)`), when one is safe to offer.
   */
  offers: { session: boolean; pattern?: string };
}

/**
 * `accept` runs the call; `session` runs it and approves its tool for the rest of the session (as the REPL's "yes,
 * for this session"); `pattern` runs it and allows the offered command pattern for the rest of the session; each only
 * when the question offered it, else it counts as `accept`. Anything else refuses it. `unavailable`: the client cannot
 * be asked (no elicitation); `too-long`: the question would be longer than `APPROVAL_QUESTION_MAX`, so it was not asked.
 */
export type McpApprovalAnswer =
  | 'accept'
  | 'session'
  | 'pattern'
  | 'decline'
  | 'cancel'
  | 'unavailable'
  | 'too-long';

/**
 * The longest approval question sent to a client, in characters. A call is only approved as the user saw it, whole;
 * one whose text is longer is refused rather than shown shortened.
 */
export const APPROVAL_QUESTION_MAX = 20_000;

export interface McpToolCallOutcome {
  /** False when the tool failed or the call was refused. */
  ok: boolean;
  /** The text the agent's model would read (the output, or the error or refusal). */
  content: string;
  /** The call did not run: not allowed, refused by a rule, or not approved. */
  refused?: boolean;
  images?: ToolResult['images'];
  /** The run log's id of the call. */
  runId?: number;
}

export interface McpToolCallOptions {
  /** The session the call is logged in (its grants decide what may run). */
  session: Session;
  /** The tool's working folder. */
  cwd: string;
  /** Asks the client to approve a call that needs it. */
  ask(question: McpApprovalQuestion): Promise<McpApprovalAnswer>;
  signal: AbortSignal;
  /** What started the run, for the run log (`mcp claude-ai`). */
  trigger: string;
  /**
   * The session's approvals ("for this session"), each bound to the file that declared the tool, as the agent keeps
   * them in its thread: a whole tool in it runs without asking while its file is unchanged, a command pattern allows
   * the commands it covers; an answer `session` or `pattern` adds to it.
   */
  approvals?: SessionApproval[];
  /**
   * Told when the call's run is in the run log, before anything is asked or run. A call that ends without it (an
   * unknown name, a tool the session may not use, arguments its schema refuses, the session's lease not had in
   * time) ran nothing: `--http` gives its place in the user's minute back.
   */
  onLogged?(runId: number): void;
}

/**
 * What a question may offer for the session (graph's `sessionOffer`: nothing at an ask rule's question, for a raw
 * shell command its command pattern only), and only when the session keeps approvals (`keeps`: the tool's file
 * digest, undefined when nothing can be kept).
 */
async function sessionOffers(
  tool: DeclaredTool,
  args: Readonly<Record<string, unknown>>,
  reason: ApprovalReason,
  keeps: string | undefined,
): Promise<McpApprovalQuestion['offers']> {
  if (keeps === undefined) return { session: false };
  const { sessionOffer } = await import('@birdie/graph/tool-approval');
  const { wholeTool, pattern } = sessionOffer({
    tool: tool.name,
    args,
    reason,
    ...(tool.raw ? { raw: true } : {}),
  });
  return { session: wholeTool, ...(pattern ? { pattern } : {}) };
}

/**
 * A `tools/call` of a name that is no tool here: neither a skill's tool (of any skill: one the session may not use is a
 * refused call instead) nor one of the session's MCP servers'. The MCP server answers it as the JSON-RPC error
 * `InvalidParams` (-32602), as the MCP specification asks for an unknown tool.
 */
export class McpUnknownToolError extends Error {
  readonly code = 'mcp-unknown-tool';
}

export function isMcpUnknownToolError(error: unknown): error is McpUnknownToolError {
  return error instanceof McpUnknownToolError;
}

/**
 * Why no tool of that name runs, as `birdie tool` says it (`knownTool`: a tool of an untrusted project skill, one
 * refused at load, else the closest name). The closest is drawn only from `listed`, the names the session's
 * `tools/list` shows: a tool it may not use (a skill not enabled or not granted for it) is not the caller's to learn of.
 */
async function unknownToolError(
  snapshot: Parameters<typeof knownTool>[0],
  name: string,
  listed: readonly string[],
): Promise<McpUnknownToolError> {
  try {
    await knownTool(snapshot, name, listed);
  } catch (error) {
    if (error instanceof UsageError) return new McpUnknownToolError(error.message, { cause: error });
    throw error;
  }
  return new McpUnknownToolError(`unknown tool "${name}"`);
}

/** An unknown tool for a caller who may learn of the listed tools only: the closest of them, if one is close. */
function unlistedToolError(name: string, listed: readonly string[]): McpUnknownToolError {
  return new McpUnknownToolError(
    `unknown tool "${name}".${didYouMean(name, listed)} tools/list shows the tools this server offers you.`,
  );
}

/** How long a call waits for the session's lease (one writer per session: calls of one connection run in turn). */
const LEASE_WAIT_MS = 60_000;

const refusal = (content: string, runId?: number): McpToolCallOutcome => ({
  ok: false,
  refused: true,
  content,
  ...(runId !== undefined ? { runId } : {}),
});

/**
 * One `tools/call` through the agent's own path for a tool call: the session's policy (grants, the operator's
 * ceiling under `--http`), the tool built by `@birdie/graph/tools` (schema check, defaults, limits), the approval
 * rules, mode and declaration (`callApproval`), the client asked where approval is needed, and the call run in the
 * session's folder environment, journaled and logged as a run of the session (trigger `mcp …`).
 */
export async function callMcpTool(
  host: McpHost,
  name: string,
  args: Record<string, unknown>,
  options: McpToolCallOptions,
): Promise<McpToolCallOutcome> {
  const { session, signal } = options;
  await host.loadGrants(session);
  const snapshot = host.registry.current();
  const {
    createSkillTool,
    TOOL_LIMITS,
    callApproval,
    compileRules,
    describeRule,
    approvalSource,
    approvedForSession,
    approvalPatternProblem,
  } = await import('@birdie/graph/tools');
  const validPattern = (pattern: string) => approvalPatternProblem(pattern) === undefined;
  let tool: DeclaredTool | undefined;
  let served: readonly DeclaredTool[] = [];
  const entry = snapshot.getTool(name);
  if (entry && host.policy.isToolAllowed(session.id, name, snapshot))
    // In the session, as the agent's toolset builds it: a `builtin:` tool is the agent's own (memory, tasks).
    tool = createSkillTool(entry.skill, entry.tool, TOOL_LIMITS, { inSession: true });
  else {
    // A tool of an MCP server one of the session's skills declares (only allowed skills' servers are asked).
    served = (await host.mcpTools.tools(session.id, options.cwd)).tools;
    tool = served.find((t) => t.name === name);
  }
  if (!tool) {
    // A skill's tool the session may not use is a refused call, which says how to get it (enable its skill). A skill
    // the operator keeps from `--http` users is no tool of this server for them: answered as a name found nowhere.
    if (entry && host.policy.withinCeiling(entry.skill, snapshot))
      return refusal(`Error: tool "${name}" is not available here (its skill is disabled or not allowed).`);
    const listed = [
      ...host.policy.allowedTools(session.id, snapshot).map(({ tool: allowed }) => allowed.name),
      ...served.map((t) => t.name),
    ];
    // Any other name is no tool of this server at all: the caller's mistake, not a tool's result. Over `--http` the
    // caller is a token holder, not the operator: why a skill of the server's folders did not load (an untrusted
    // project, a file refused at load, with its path) is the operator's to learn, so only the closest listed name is
    // given.
    throw host.serve ? unlistedToolError(name, listed) : await unknownToolError(snapshot, name, listed);
  }
  const approvals = options.approvals;
  const built = tool.build(args);
  if (!built.ok) return { ok: false, content: built.error };
  const { invocation } = built;
  const source = approvalSource(tool, snapshot);
  // The command patterns the user allowed for the session, as the agent's session rules: bound to the tool's file.
  const sessionPatterns = (approvals ?? []).flatMap((a) =>
    a.pattern !== undefined &&
    a.tool === tool.name &&
    source !== undefined &&
    a.source === source &&
    // A pattern saved before the grammar refused it (shell syntax) no longer applies: the call asks.
    validPattern(a.pattern)
      ? [{ pattern: a.pattern, effect: 'allow' as const, source: { kind: 'session' as const } }]
      : [],
  );
  const decision = callApproval({
    tool,
    invocation,
    approval: host.approval,
    askRawCommands: host.askRawCommands,
    rules: sessionPatterns.length ? compileRules([...host.rules.rules, ...sessionPatterns]) : host.rules,
    // Path rules match the real path inside the session's folder, as in the agent's turn.
    root: options.cwd,
    ...(approvals ? { approvedForSession: (t) => approvedForSession(approvals, t, snapshot) } : {}),
  });
  const { store } = host;
  const lease = await store.leases
    .acquire(session.id, { waitMs: LEASE_WAIT_MS, signal })
    .catch((thrown: unknown) => {
      // Over `--http` the caller is a token holder: the process and machine holding the session are the operator's.
      if (host.serve && isStoreErrorLike(thrown) && thrown.code === 'session-busy')
        throw new StoreError('session-busy', withoutHolder(thrown.code, thrown.message), { cause: thrown });
      throw thrown;
    });
  let runId: number | undefined;
  let status: FinishedStatus = 'ok';
  let error: string | undefined;
  let fenced: string | undefined;
  let outcome: McpToolCallOutcome;
  try {
    outcome = await (async (): Promise<McpToolCallOutcome> => {
      runId = await store.runs.start({
        sessionId: session.id,
        userId: session.userId,
        trigger: options.trigger,
      });
      options.onLogged?.(runId);
      if (decision.effect === 'deny') {
        status = 'rejected';
        error = `Refused by the ${describeRule(decision.rule.rule)}: this call may not run.`;
        return refusal(error, runId);
      }
      if (decision.reason !== null) {
        const offers = await sessionOffers(tool, invocation.args, decision.reason, approvals && source);
        const answer = await options.ask({
          tool: tool.name,
          ...(tool.skill ? { skill: tool.skill } : {}),
          description: invocation.describe(decision.reason),
          reason: decision.reason,
          args: invocation.args,
          offers,
        });
        // Only what was offered is kept: a client answering a choice the form did not hold approves this call alone.
        const kept =
          answer === 'session' && offers.session
            ? {}
            : answer === 'pattern' && offers.pattern !== undefined
              ? { pattern: offers.pattern }
              : undefined;
        if (kept && approvals && source !== undefined)
          approvals.push({
            tool: tool.name,
            ...(tool.skill ? { skill: tool.skill } : {}),
            source,
            ...kept,
            at: new Date().toISOString(),
          });
        if (answer !== 'accept' && answer !== 'session' && answer !== 'pattern') {
          status = 'rejected';
          error =
            answer === 'unavailable'
              ? `Refused: ${name} needs approval, and this MCP client cannot be asked (it does not support elicitation). Approve it with an approval rule, or use a client that supports elicitation.`
              : answer === 'too-long'
                ? `Refused: this call of ${name} needs approval and is too long to show whole in the client's approval question (more than ${APPROVAL_QUESTION_MAX} characters); a call is only approved as the user saw it. Make the call smaller, or allow it with an approval rule.`
                : `Refused: the user did not approve this call of ${name} (${answer}).`;
          return refusal(error, runId);
        }
      }
      const folder = await openSessionFolder(store, host.io.env, session);
      const journal = folder.journal(await store.runs.journal(runId));
      const id = `mcp_${randomUUID()}`;
      await journal.started({ id, name: tool.name, ...(tool.skill ? { skill: tool.skill } : {}) });
      const started = Date.now();
      const result = await invocation.run({
        cwd: options.cwd,
        signal,
        callId: id,
        env: {
          ...folder.env,
          BIRDIE_SESSION_ID: session.id,
          ...settingsToolEnv(host.settings, host.io.env),
        },
        // The builtin tools reach the session's user's memory and tasks, as in the agent's turn (`turn.ts`).
        memoryStore: longTermMemory(store, session.userId),
        taskStore: taskBook(host, {
          runId,
          userId: session.userId,
          sessionId: session.id,
          grants: () => host.policy.grants(session.id),
        }),
      });
      await journal.finished({
        id,
        ok: result.ok,
        durationMs: Date.now() - started,
        truncated: result.truncated,
        ...(result.ok ? {} : { error: result.content }),
      });
      if (!result.ok) {
        status = signal.aborted ? 'cancelled' : 'error';
        error = result.content;
      }
      return {
        ok: result.ok,
        content: result.content,
        runId,
        ...(result.images ? { images: result.images } : {}),
      };
    })();
  } catch (thrown) {
    status = signal.aborted ? 'cancelled' : 'error';
    error = thrown instanceof Error ? thrown.message : String(thrown);
    // The session taken over mid-call (a journal write is fenced): over `--http`, said without who took it.
    if (host.serve && isStoreErrorLike(thrown) && thrown.code === 'lease-lost')
      throw new StoreError('lease-lost', withoutHolder(thrown.code, thrown.message), { cause: thrown });
    throw thrown;
  } finally {
    try {
      if (runId !== undefined) fenced = await endRun(store, runId, status, error, host.serve !== undefined);
    } finally {
      await lease.release();
    }
  }
  // The call ran (or was refused) before its run's end was refused: its result stands, with the reason.
  return fenced === undefined ? outcome : { ...outcome, content: `${outcome.content}\n\n(${fenced})` };
}

/**
 * Ends the call's run. A process whose lease was taken over meanwhile (it paused past the lease's TTL) ends nothing:
 * the new holder marked the run `died`. Returns that refusal's message instead of throwing it, as a turn reports it.
 */
async function endRun(
  store: Store,
  runId: number,
  status: FinishedStatus,
  error: string | undefined,
  shared: boolean,
): Promise<string | undefined> {
  try {
    await store.runs.finish(runId, { status, ...(error !== undefined ? { error } : {}) });
    return undefined;
  } catch (thrown) {
    // Only `lease-lost`: the call holds the session's lease, so the store never answers `session-busy` here. Over
    // `--http` (`shared`) the caller is not told which process and machine took the session over.
    if (isStoreErrorLike(thrown) && thrown.code === 'lease-lost') {
      return `the call's run log was not ended: ${shared ? withoutHolder(thrown.code, thrown.message) : thrown.message}`;
    }
    throw thrown;
  }
}
