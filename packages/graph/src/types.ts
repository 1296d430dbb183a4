import type { FileAccess } from '@birdie/entrypoints';
import type { McpServerConfig, Skill, SkillTool } from '@birdie/skill-parser';
import type { BaseMessage } from '@langchain/core/messages';
import type { RuleEffect, RuleSource } from './approval-pattern.js';
import type { McpNotice, McpTurnHandlers } from './mcp-connection.js';
import type { McpSession } from './mcp-session.js';

/**
 * The parts of `@birdie/registry` the agent reads. Declared structurally so the agent accepts the real `Registry`
 * and `SkillPolicy` (and any object of the same shape) without a runtime dependency on their classes.
 */
export interface AgentRegistrySnapshot {
  readonly skills: readonly Skill[];
  /** The agent of that name (agent files, `@birdie/registry`); a registry without agents leaves it out. */
  getAgent?(name: string): AgentSpec | undefined;
  readonly version: number;
  getSkill(name: string): Skill | undefined;
  getTool(name: string): { skill: Skill; tool: SkillTool } | undefined;
  mcpServers(): Array<{ skill: Skill; server: McpServerConfig }>;
  matchTriggers(message: string, allowedSkillNames: Iterable<string>): Skill[];
}

/**
 * An agent as the registry gives it (an `AGENT.md`-style file parsed by `@birdie/skill-parser`). Declared
 * structurally, like the registry: the graph reads these fields and nothing else.
 */
export interface AgentSpec {
  name: string;
  description: string;
  /** `"vendor:model"` or a tier name: resolved by the application's `modelFor`, never by the graph. */
  model?: string;
  /** Skills the agent may use (intersected with what the session allows). Absent: every allowed skill. */
  skills?: readonly string[];
  /** Tool names the agent may call (skill and MCP tools). Absent: every tool of its skills. */
  tools?: readonly string[];
  /**
   * Allow rules of this agent (approval patterns: `write_file`, `run_bash(git status)`): what they match runs without
   * asking, except under mode `always`. A bare raw shell tool (`run_bash`) allows no command: name the commands.
   */
  approve?: readonly string[];
  /** Agents it may run with the `task` tool. */
  subagents?: readonly string[];
  /** Agents it may hand the conversation to with the `handoff` tool. */
  handoffs?: readonly string[];
  /** Tools of its skills stay hidden until `load_skill` loads the skill. */
  progressive?: boolean;
  /** Model calls per run before it stops with `max-turns`. */
  maxTurns?: number;
  /** Seconds per run before it stops with `agent-timeout` (tools are stopped with it). */
  timeout?: number;
  /** Sampling temperature of its model calls, handed to the application's `modelFor`. */
  temperature?: number;
  /** Retries of a failed model call, handed to the application's `modelFor`. */
  maxRetries?: number;
  /** The agent's system prompt. */
  body: string;
  file: string;
  /** Digest of the definition (frontmatter + body). */
  digest: string;
}

export interface AgentRegistry {
  current(): AgentRegistrySnapshot;
}

export interface AgentPolicy {
  allowedSkills(key: string, snapshot?: AgentRegistrySnapshot): Skill[];
  allowedTools(key: string, snapshot?: AgentRegistrySnapshot): Array<{ skill: Skill; tool: SkillTool }>;
  isToolAllowed(key: string, toolName: string, snapshot?: AgentRegistrySnapshot): boolean;
  /** Whether an agent may be delegated to or handed off to (an operator's allow list); absent: every agent. */
  isAgentAllowed?(name: string): boolean;
  /**
   * Whether the application's ceiling (an operator's list of skills) lets a skill be used at all, grants aside: a
   * refusal of a tool outside it says no one in the session can enable it. Absent: every skill.
   */
  withinCeiling?(skill: Skill, snapshot?: AgentRegistrySnapshot): boolean;
}

export type ApprovalMode = 'ask' | 'always' | 'never';

export type MemoryItem = string | { id: string; content: string };

export interface AgentOptions {
  /**
   * A safety cap on the messages sent per call, whatever the token budget says (the checkpoint keeps everything).
   * Default 1000.
   */
  contextMessages?: number;
  /**
   * The input limit, in tokens, assumed for every model instead of its LangChain profile's `maxInputTokens` (the
   * CLI's `context_window` setting). Default: the model's profile, else 128,000.
   */
  contextWindow?: number;
  /**
   * When the conversation takes more than `threshold` of the budget (the context window minus the system prompt,
   * the tool definitions and room for the answer), old tool results are cut, then the older part is summarised.
   * `false`: never compact (only `contextMessages` bounds what is sent). Default `{ threshold: 0.8 }`.
   */
  compaction?: false | { threshold?: number };
  /** Character budget of the Tier 1 skill catalog. Default 8000. */
  catalogBudgetChars?: number;
  /** Tool output above this many characters is cut. Default 32000. */
  maxToolOutputChars?: number;
  /** Supersteps per run (agent and tools steps count one each). Default 50. */
  recursionLimit?: number;
  /** Timeout of a skill tool without its own `timeout`. Default 60000 ms (`TOOL_LIMITS.timeoutMs`). */
  defaultTimeoutMs?: number;
  /** Working directory of tools when a turn gives none. Default `process.cwd()`. */
  cwd?: string;
  /** Text placed before the tiers of the system prompt. */
  instructions?: string;
  /** Largest file `read_reference` returns, in characters. Default 64000. */
  maxReferenceChars?: number;
  /** How many levels of subagents may run below the session's agent (`task` inside `task` …). Default 3. */
  maxSubagentDepth?: number;
  /** Character budget of the project memory files tier (`memoryFiles`). Default 16000. */
  memoryFilesBudgetChars?: number;
  /** Connect/list timeout of an MCP server, ms. Default 15000. */
  mcpConnectTimeoutMs?: number;
  /** Timeout of one MCP tool call without a server `timeout`, ms. Default 60000. */
  mcpToolTimeoutMs?: number;
  /**
   * When a turn's tools are more than `maxTools` or their definitions more than `maxChars` characters of JSON, only
   * some are bound to the model: the builtins, the pinned ones (`TurnOptions.pinnedTools`, an agent file's `tools`,
   * skills with `always_inject`), the ones `find_tools` found and the ones used recently, plus `find_tools`, which
   * searches the rest. `false`: always bind every tool. Default `{ maxTools: 40, maxChars: 12000 }`.
   */
  toolBudget?: false | { maxTools?: number; maxChars?: number };
}

/** A project memory file (`AGENTS.md`) as the application read it. */
export interface MemoryFile {
  path: string;
  text: string;
}

/** One entry of the user's long-term memory, as the builtin memory tools see it. */
export interface MemoryRecord {
  id: string;
  content: string;
}

/**
 * The user's long-term memory, given per turn by the application (the CLI wraps the store's memory repo). Only
 * the builtin tools `remember`, `recall` and `forget` reach it; skill entrypoints never do.
 */
export interface LongTermMemory {
  list(): MemoryRecord[] | Promise<MemoryRecord[]>;
  add(content: string): MemoryRecord | Promise<MemoryRecord>;
  /** `false` when there is no entry with that id. */
  remove(id: string): boolean | Promise<boolean>;
}

/** A task as the builtin task tools show it. */
export interface TaskRecord {
  id: string;
  /** `every 1h`, `schedule 0 9 * * * (UTC)`, `at 2026-…`. */
  when: string;
  prompt: string;
  agent?: string;
  /**
   * What runs the task and how it is stopped, as the application says it (`birdie serve`: the server, `DELETE
   * /v1/tasks/N`); `schedule_task`'s answer ends with it. Absent: the CLI's (`birdie start`, `birdie tasks cancel N`).
   */
  howItRuns?: string;
}

/** What `schedule_task` is given: the prompt and exactly one of schedule, every, at (checked by the application). */
export interface NewTaskRequest {
  prompt: string;
  schedule?: string;
  timezone?: string;
  every?: string;
  at?: string;
  agent?: string;
}

/**
 * The user's scheduled tasks, given per turn by the application (the CLI wraps the store's tasks repo; `birdie start`
 * runs them). Only the builtin tools `schedule_task`, `list_tasks` and `cancel_task` reach it. `create` throws an
 * `Error` whose message the model sees when the request is invalid.
 */
export interface TaskBook {
  list(): TaskRecord[] | Promise<TaskRecord[]>;
  create(request: NewTaskRequest): TaskRecord | Promise<TaskRecord>;
  /** `false` when there is no active task with that id. */
  cancel(id: string): boolean | Promise<boolean>;
}

export interface TurnOptions {
  threadId: string;
  /**
   * The model of this turn, as the application's `modelFor` understands it (`"vendor:model"` or a tier name, e.g.
   * from `/model`): it replaces the session agent's model (and is the model of subagents that name none). A
   * `switch_model` call still moves the rest of the turn to its tier.
   */
  model?: string;
  /**
   * The agent that answers (a name the registry's `getAgent` knows), `null` for the default agent (no body).
   * Absent: the agent the thread ended with last time (a handoff moves it), else the default agent.
   */
  agent?: string | null;
  /** Tier 3 of the system prompt (long-term memory). */
  memory?: MemoryItem[];
  /**
   * Project memory files (`AGENTS.md`), general to specific (`~/.birdie/AGENTS.md`, the repository root, …, the
   * working directory): their own tier of the system prompt, under `memoryFilesBudgetChars`. The graph reads no
   * files itself; `findMemoryFiles` finds them.
   */
  memoryFiles?: MemoryFile[];
  /** The user's long-term memory for the builtin `remember` / `recall` / `forget` tools. */
  memoryStore?: LongTermMemory;
  /** The user's scheduled tasks for the builtin `schedule_task` / `list_tasks` / `cancel_task` tools. */
  taskStore?: TaskBook;
  /** Default `'ask'`. */
  approval?: ApprovalMode;
  /**
   * A tool that runs a raw command (a `bash:` template that is only `{command}`) asks for approval whatever
   * `approval` says (`never` included) and whatever the tool declares: a server's API sessions, where the one who
   * approves is not the operator whose machine runs it. Subagents inherit it. Default false.
   */
  askRawCommands?: boolean;
  signal?: AbortSignal;
  /** Working directory of tools for this turn. */
  cwd?: string;
  /**
   * Extra environment for every skill tool of this turn (a `node:` tool's `context.env`; a `bash:`/`python:` child's
   * environment on top of the allowlist), e.g. `BIRDIE_SESSION_DIR`. It lives only in the run's config, never in state
   * or checkpoints; still, it is not the place for secrets (tools may echo it). `BIRDIE_SESSION_ID` is always the
   * thread id, whatever this says.
   */
  toolEnv?: Record<string, string>;
  /**
   * Where the application records each tool call before its process starts and when it ends (the CLI passes the
   * store's run log). With it, a call cut off by a crash is repaired as "not executed" only when it provably never
   * started; without it, as "result unknown".
   */
  journal?: ToolJournal;
  /**
   * Text files read and written through the application instead of the disk (an editor's buffers over ACP): given
   * to `node:` tools as `context.files`. Like `toolEnv`, it lives only in the run's config.
   */
  files?: FileAccess;
  /** Tools this turn always binds, whatever the tool budget (`AgentOptions.toolBudget`): the session's pins. */
  pinnedTools?: string[];
  /**
   * What the front end does for an MCP server while this turn's calls run: approve a sampling request (and the
   * answer) the turn's model then answers, fill an elicitation form. Absent: sampling is refused, elicitation declined.
   */
  mcp?: McpTurnHandlers;
}

/** The record of tool calls an application keeps; `started` must be durable when it returns. */
export interface ToolJournal {
  started(call: { id: string; name: string; skill?: string }): void | Promise<void>;
  finished(call: {
    id: string;
    ok: boolean;
    durationMs: number;
    truncated: boolean;
    error?: string;
  }): void | Promise<void>;
  /** Which of these call ids of the thread were ever recorded as started (finished or not). */
  startedAmong(ids: readonly string[]): Set<string> | Promise<Set<string>>;
  /**
   * Of these call ids, the ones whose end was recorded (`true`: succeeded). A call can end after its result was
   * produced but before the result reached the checkpoint; the repair then says it finished. Optional.
   */
  finishedAmong?(ids: readonly string[]): Map<string, boolean> | Promise<Map<string, boolean>>;
}

/**
 * `agent` on a resume does not change who runs the pending calls (the agent that asked for them); the named agent
 * takes over from the next model call on.
 */
export type ResumeOptions = Omit<TurnOptions, 'threadId'>;

export interface ApprovalRequest {
  /** The tool call id; decisions are keyed by it. */
  id: string;
  /** SHA-256 of the tool name and these exact arguments: the decision applies to this call only. */
  digest: string;
  tool: string;
  skill?: string;
  /** The tool runs a raw shell command (`args.command`): a prompt may offer a command-prefix rule for it. */
  raw?: true;
  args: Record<string, unknown>;
  /**
   * The tool's JSON Schema, so a prompt can check edited arguments before it sends them (`checkToolArgs`); an edit
   * the schema refuses would otherwise fail only once the call is made. Absent for the model's own agent's tools.
   */
  parameters?: Record<string, unknown>;
  /**
   * What the call will do, for a prompt to the user: the command or the arguments whole, never shortened (a command
   * keeps its newlines). A prompt that cannot show all of it must not offer to approve the call.
   */
  description: string;
  /**
   * Why approval is needed; `model-agent`: the model runs its own agent, which asks before one of its tools;
   * `file-change`: the tool changes files (it declares a `preview:`), and `preview` says how; `runs-code`: the
   * tool's `bash:` command can run a value as code (`perl -e`, `find -exec sh -c`, … see `Entrypoint.runsCode`).
   */
  reason:
    | 'raw-command'
    | 'approval-required'
    | 'mode-always'
    | 'model-agent'
    | 'file-change'
    | 'runs-code'
    | 'rule';
  /** `reason: 'rule'`: the ask rule that asks (or the deny/ask rule a command line too complex to read ran into). */
  rule?: { pattern: string; effect: RuleEffect; source: RuleSource };
  /**
   * Why the allow rules that name this tool did not let the call run (`the allow rule \`run_bash(git status)\`
   * (agent nightly.md) does not match \`touch F\``); absent when no allow rule names the tool.
   */
  ruleMiss?: string;
  /** The agent asking, as a path from the session's agent down (`['reviewer', 'researcher']`); absent without agents. */
  agent?: string[];
  /**
   * The tool was not among those the model was given: `find_tools` added it (the model searched for it), so a
   * prompt should say so.
   */
  addedBy?: 'find_tools';
  /**
   * What the call would change, computed without side effects when the question is asked (the files as they are
   * then), for tools that declare a `preview:`. `error`: the preview failed (the call would most likely fail too).
   */
  preview?: ChangePreview;
}

/**
 * One change a call would make. `file`: its text before (`null`: the file does not exist yet) and after; a file too
 * large or not text has `note` instead of the texts. `folder`: a folder that would be created. Paths are as the tool
 * shows them (relative to the working directory).
 */
export type PlannedChange =
  | { kind: 'file'; path: string; before?: string | null; after?: string; note?: string }
  | { kind: 'folder'; path: string; note?: string };

export type ChangePreview = { changes: PlannedChange[] } | { error: string };

/**
 * A tool the user approved for the rest of the session (an `approve` decision with `scope: 'session'`), kept in the
 * thread's checkpointed state, so it holds after a resume in another process. It is bound to what declared the tool:
 * `source` is `sha256:` and a digest of the skill as parsed from its file (its path and everything read from it: tools,
 * MCP server, text), for skill and MCP tools alike, or `builtin` for birdie's own tools. When the file changes or
 * another file provides the skill, the source differs and the user is asked again. Subagents are given the session's.
 */
export interface SessionApproval {
  tool: string;
  skill?: string;
  source: string;
  /**
   * A session rule rather than the whole tool: the allow pattern the user chose (`run_bash(npm test *)`), from an
   * `approve` decision with `scope: 'session'` and a `pattern`. Bound to `source` like a tool approval.
   */
  pattern?: string;
  /** ISO time of the approval. */
  at: string;
}

export type ApprovalDecision =
  | {
      type: 'approve';
      /**
       * `session`: also approve later calls of this tool in this session, without asking, while the skill file that
       * declares it stays the same (see `SessionApproval`). Default `once`.
       */
      scope?: 'once' | 'session';
      /**
       * With `scope: 'session'`: approve only what this allow pattern covers for the rest of the session (a session
       * rule, e.g. `run_bash(npm test *)` from `suggestCommandPattern`), not the whole tool. It must name the
       * request's tool and cover this call.
       */
      pattern?: string;
    }
  | { type: 'edit'; args: Record<string, unknown> }
  | {
      type: 'reject';
      message?: string;
      /**
       * True when no person was asked: the caller cannot ask (`birdie run` without `--yes`, an unattended run). The
       * call is then `refused` (the `tool-end` outcome), and the model is told nobody was asked, not that a user said
       * no; `message` says why.
       */
      unasked?: boolean;
    };

/**
 * A tool call of the model's own agent (a model that is an agent, such as the `acp` vendor): shown, never run by
 * birdie, never journaled. One event per change, with the same `id`.
 */
export interface ModelToolEvent {
  type: 'model-tool';
  id: string;
  title: string;
  /** The agent's category of the tool (`read`, `edit`, `execute`, …), when it gives one. */
  kind?: string;
  status: 'pending' | 'in_progress' | 'completed' | 'failed';
  input?: unknown;
  /** The tool's output as text, once it has one. */
  output?: string;
}

/**
 * The model's own agent asks before one of its tools runs, while the model call goes on: the application answers
 * with `respond` (once; later calls are ignored) without stopping the stream, unlike `approval-request`. An
 * application that runs such a model must answer these; the turn's abort signal answers `reject`.
 */
export interface ModelApprovalEvent {
  type: 'model-approval';
  request: ApprovalRequest;
  respond(decision: ApprovalDecision): void;
}

export type DoneStatus = 'ok' | 'interrupted' | 'error' | 'aborted';

/** What one model call cost, and which model made it. */
export interface UsageEvent {
  type: 'usage';
  inputTokens: number;
  outputTokens: number;
  /** The model that produced it, as the application names it (`openai:gpt-4o-mini`; see `modelName`/`modelFor`). */
  model: string;
  /**
   * For a call of the conversation (not a compaction summary): what was sent, estimated before sending with the
   * agent's token estimator (system prompt and tool definitions included), and the model's input limit.
   */
  context?: { tokens: number; window: number };
}

/**
 * The conversation was compacted: its older part (`messages` more of them) is now sent as one summary. What is
 * kept does not change (the summarised part is archived in an older checkpoint and `getState` still returns the whole
 * history); the summary and its boundary are kept in the thread's state (`getState().compactions`).
 */
export interface CompactionEvent {
  type: 'compaction';
  trigger: 'auto' | 'manual';
  /** Messages the new summary covers that the previous one did not. */
  messages: number;
  /** Estimated tokens of the conversation as it would be sent, before and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** The input limit compaction worked against. */
  window: number;
  /** The model that wrote the summary (`none` when the summary call failed and birdie listed the requests itself). */
  model: string;
  summary: string;
}

/** One compaction of a thread, kept in its state: where the summary ends and what it says. */
export interface CompactionRecord {
  /** Id of the last message the summary covers: it and every message before it are sent as the summary. */
  upTo: string;
  /** How many messages, from the start of the thread, the summary covers (its position when ids are missing). */
  messages: number;
  summary: string;
  /** Skills loaded in the part it covers: sent as breadcrumbs (name, one line, and how to load them again). */
  skills: string[];
  trigger: 'auto' | 'manual';
  /** The user's instructions for this summary (`/compact …`). */
  instructions?: string;
  tokensBefore: number;
  tokensAfter: number;
  model: string;
  /** ISO time. */
  at: string;
}

/**
 * The thread's `messages` channel was reset to what follows a compaction's boundary: the messages before it are read
 * from an older checkpoint when the whole history is asked for (`getState`), never at the start of a turn.
 */
export interface ArchiveRecord {
  /** The checkpoint that holds the history before the reset. */
  checkpointId: string;
  /** Id of the compaction's last covered message: the first message the channel kept. */
  upTo: string;
  /** How many messages of the whole history come before the kept ones. */
  offset: number;
  /** ISO time. */
  at: string;
}

/** Why a run failed: a stable code and a message; `hint` (what to do) when the failing part gave one. */
export interface RunError {
  code: string;
  message: string;
  /**
   * The fix, as a typed error of a part the application gave the agent states it (the checkpointer's full disk:
   * "free space …"). Kept apart from `message`, so the application words the failure as it does elsewhere.
   */
  hint?: string;
}

/**
 * A running call's output, as it arrives (skill tools whose entrypoint runs a child process): at most about ten a
 * second per call and stream, each the newest few KB of what arrived since the previous one, all before the call's
 * `tool-end` (whose `output` is the result the model reads). For display only: nothing here is stored.
 */
export interface ToolOutputEvent {
  type: 'tool-output';
  id: string;
  name: string;
  stream: 'stdout' | 'stderr';
  text: string;
}

/**
 * Every event says which agent it comes from when agents are in play: `agent` is the path from the session's agent
 * down to the one that produced it (`['reviewer']`, a subagent's `['reviewer', 'researcher']`). Events of the
 * default agent have no `agent`. A subagent's events arrive in its parent's stream (its own `done` and
 * `approval-request` do not: its result is the `task` call's `tool-end`, its questions are the parent's).
 */
export type AgentEvent = AgentEventBody & { agent?: string[] };

type AgentEventBody =
  | { type: 'token'; text: string }
  | { type: 'message'; message: BaseMessage }
  | { type: 'tool-start'; id: string; name: string; skill?: string; args: Record<string, unknown> }
  | ToolOutputEvent
  | {
      type: 'tool-end';
      id: string;
      name: string;
      ok: boolean;
      /**
       * Why a call that is not `ok` did not succeed, when it was not a failure of the tool: the user `rejected` it,
       * a rule, the approval mode or edited arguments that do not fit the schema `refused` it (neither ran), or the
       * user `cancelled` it while it ran.
       */
      outcome?: 'rejected' | 'refused' | 'cancelled';
      /**
       * With `outcome` `cancelled`: what stopped the call, as the opening of its answer says it (`Cancelled by the
       * user`, `Stopped because the server shut down`, `Stopped because birdie was stopped (SIGTERM)`).
       */
      stopNote?: string;
      output: string;
      truncated: boolean;
      durationMs: number;
    }
  | { type: 'approval-request'; requests: ApprovalRequest[] }
  | ToolSelectionEvent
  /** A call that would have asked ran without asking: the user approved its tool for the session earlier. */
  | { type: 'tool-approved'; id: string; name: string; skill?: string; scope: 'session' }
  /**
   * An approval rule decided a call: `allow` ran it without asking, `ask` asked, `deny` refused it. `pattern` and
   * `source` name the rule (for an allowed command line of several commands, the first rule it used).
   */
  | {
      type: 'tool-rule';
      id: string;
      name: string;
      effect: RuleEffect;
      pattern: string;
      source: RuleSource;
    }
  /** A log message or change news from an MCP server while the turn ran one of its tools. */
  | { type: 'mcp-notice'; notice: McpNotice }
  | ModelToolEvent
  | ModelApprovalEvent
  | UsageEvent
  | CompactionEvent
  | { type: 'error'; error: RunError }
  | { type: 'done'; status: DoneStatus };

export interface GetStateOptions {
  /** An earlier step of the thread (e.g. the last good one of a damaged thread) instead of its newest. */
  checkpointId?: string;
  /**
   * Only the messages the thread keeps live: those since its latest archived compaction (see `earlier`), read
   * without the older checkpoints. For what a turn needs (approvals, the agent, whether there was an exchange); a
   * transcript wants the whole history, the default.
   */
  recent?: boolean;
}

export interface AgentStateView {
  /** The whole history, oldest first; with `recent`, only what the thread keeps live. */
  messages: BaseMessage[];
  /** With `recent`: how many messages of the whole history come before `messages` (archived by compactions). */
  earlier?: number;
  /** The thread's compactions, oldest first: the last one says what is sent as a summary now. */
  compactions: CompactionRecord[];
  /** The agent the thread continues with (the last one named or handed to); absent: the default agent. */
  agent?: string;
  loadedSkills: string[];
  pendingApprovals: ApprovalRequest[];
  /** Tools approved for the rest of the session (`scope: 'session'`), oldest first. */
  sessionApprovals: SessionApproval[];
}

export interface ToolInfo {
  name: string;
  skill?: string;
  description: string;
  /**
   * Only when the tool budget holds tools back: whether the next model call is given this tool, and why (`always`:
   * a builtin or pinned; `found`: `find_tools` returned it; `recent`: it ran lately; `search`: `find_tools` itself).
   */
  bound?: false | 'always' | 'found' | 'recent' | 'search';
}

/**
 * A model call is given only some of the turn's tools (they exceed the tool budget): `bound` names them, `find_tools`
 * included; `found` those of them that `find_tools` returned; `held` how many allowed tools it can still find.
 */
export interface ToolSelectionEvent {
  type: 'tool-selection';
  bound: string[];
  found: string[];
  held: number;
}

export interface Agent {
  stream(input: string, options: TurnOptions): AsyncIterable<AgentEvent>;
  resume(
    threadId: string,
    decisions: Record<string, ApprovalDecision>,
    options?: ResumeOptions,
  ): AsyncIterable<AgentEvent>;
  /** The thread's state now, or at an earlier step (`checkpointId`), e.g. the last good one of a damaged thread. */
  getState(threadId: string, options?: GetStateOptions): Promise<AgentStateView>;
  /**
   * The agent the thread continues with (`getState(threadId).agent`), read from its newest checkpoint alone: no
   * message is decoded. Undefined for the default agent or a thread that does not exist.
   */
  currentAgent(threadId: string): Promise<string | undefined>;
  /**
   * Runs one turn to its end and returns its outcome (the final answer, usage, the new messages), or the pending
   * approvals when it stopped for one. A failed run throws `AgentError` (an `error` event's code).
   */
  invoke(input: string, options: TurnOptions): Promise<InvokeResult>;
  /**
   * Compacts the thread now (`/compact`): everything but the last exchange is summarised (with `instructions`, if
   * given) and the boundary recorded in the thread's state, unless that would not make the conversation smaller
   * (`applied: false`). Undefined when there is nothing old enough to summarise.
   * Refused (`busy`) while a run is in progress or tool calls wait for their results or approvals.
   */
  compact(threadId: string, options?: CompactOptions): Promise<CompactionResult | undefined>;
  /**
   * Answers the calls a thread waits to run (pending approvals, and the calls held back with them) as not run, with
   * `reason`, so the history says what became of them: for a turn the user cancelled at the approval question.
   * Nothing runs and no model is called. Returns the call ids it answered (empty when nothing was pending).
   */
  dropPending(threadId: string, reason: string): Promise<string[]>;
  /**
   * The thread's enabled MCP servers (connected now, as a turn would), for a front end to offer their prompts and
   * resources. The view's `close` ends the subscriptions of the resources the session attached. With
   * `connect: false` only the servers already connected are in it (nothing is started). A server it starts is
   * given the session's folder as its root, as a turn gives it: `cwd`, else the agent's `options.cwd`.
   */
  mcpSession(threadId: string, options?: { connect?: boolean; cwd?: string }): Promise<McpSession>;
  /**
   * The tools the thread's agent (or `options.agent`) is given now. A server it starts gets its roots as in
   * `mcpSession`.
   */
  toolsFor(
    threadId: string,
    options?: { agent?: string | null; pinnedTools?: string[]; cwd?: string },
  ): Promise<ToolInfo[]>;
  /**
   * Closes the agent: no run starts from now on (`closed`), and runs in progress stop as on a cancel (their running
   * tools are stopped, what streamed is kept, cut-off calls answered) and end with an `error` event `closed`. Then
   * its MCP servers are stopped. It does not wait for those runs' consumers to read their last events.
   */
  close(): Promise<void>;
}

export interface CompactOptions {
  /** What the summary should keep or focus on. */
  instructions?: string;
  /** The model the session uses now (as in `TurnOptions.model`), for the summary when there is no `fast` tier. */
  model?: string;
  signal?: AbortSignal;
}

export interface CompactionResult {
  record: CompactionRecord;
  /** Messages the new summary covers that the previous one did not. */
  messages: number;
  tokensBefore: number;
  tokensAfter: number;
  /** What the summary calls cost, and the model that made them. */
  usage: { inputTokens: number; outputTokens: number; model: string };
  /**
   * False when the conversation sent with the summary would not be smaller than without it (`tokensAfter` ≥
   * `tokensBefore`): nothing was recorded and the thread is as it was; `record` is the summary that was not used.
   */
  applied: boolean;
}

export interface InvokeResult {
  status: 'ok' | 'interrupted';
  /** The text of the last model message of the run ('' when it stopped for approvals before answering). */
  text: string;
  /** Tokens of every model call of the run, subagents included. */
  usage: { inputTokens: number; outputTokens: number };
  /** The messages this run added to the thread (the session's own, not its subagents'). */
  messages: BaseMessage[];
  /** Set when `status` is `interrupted`: decide them and call `resume`. */
  pendingApprovals: ApprovalRequest[];
  /** The agent that spoke last (after handoffs); absent for the default agent. */
  agent?: string;
}
