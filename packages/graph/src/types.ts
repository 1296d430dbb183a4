import type { McpServerConfig, Skill, SkillTool } from '@birdie/skill-parser';
import type { BaseMessage } from '@langchain/core/messages';

/**
 * The parts of `@birdie/registry` the agent reads. Declared structurally so the agent accepts the real `Registry`
 * and `SkillPolicy` (and any object of the same shape) without a runtime dependency on their classes.
 */
export interface AgentRegistrySnapshot {
  readonly skills: readonly Skill[];
  readonly version: number;
  getSkill(name: string): Skill | undefined;
  getTool(name: string): { skill: Skill; tool: SkillTool } | undefined;
  mcpServers(): Array<{ skill: Skill; server: McpServerConfig }>;
  matchTriggers(message: string, allowedSkillNames: Iterable<string>): Skill[];
}

export interface AgentRegistry {
  current(): AgentRegistrySnapshot;
}

export interface AgentPolicy {
  allowedSkills(key: string, snapshot?: AgentRegistrySnapshot): Skill[];
  allowedTools(key: string, snapshot?: AgentRegistrySnapshot): Array<{ skill: Skill; tool: SkillTool }>;
  isToolAllowed(key: string, toolName: string, snapshot?: AgentRegistrySnapshot): boolean;
}

export type ApprovalMode = 'ask' | 'always' | 'never';

export type MemoryItem = string | { id: string; content: string };

export interface AgentOptions {
  /** Messages sent to the model per call (the checkpoint keeps everything). Default 20. */
  contextMessages?: number;
  /** Character budget of the Tier 1 skill catalog. Default 8000. */
  catalogBudgetChars?: number;
  /** Tool output above this many characters is cut. Default 32000. */
  maxToolOutputChars?: number;
  /** Supersteps per run (agent and tools steps count one each). Default 50. */
  recursionLimit?: number;
  /** Timeout of a skill tool without its own `timeout`. Default 120000 ms (`TOOL_LIMITS.timeoutMs`). */
  defaultTimeoutMs?: number;
  /** Working directory of tools when a turn gives none. Default `process.cwd()`. */
  cwd?: string;
  /** Text placed before the tiers of the system prompt. */
  instructions?: string;
  /** Largest file `read_reference` returns, in characters. Default 64000. */
  maxReferenceChars?: number;
  /** Connect/list timeout of an MCP server, ms. Default 15000. */
  mcpConnectTimeoutMs?: number;
  /** Timeout of one MCP tool call without a server `timeout`, ms. Default 60000. */
  mcpToolTimeoutMs?: number;
}

export interface TurnOptions {
  threadId: string;
  /** Tier 3 of the system prompt (long-term memory). */
  memory?: MemoryItem[];
  /** Default `'ask'`. */
  approval?: ApprovalMode;
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

export type ResumeOptions = Omit<TurnOptions, 'threadId'>;

export interface ApprovalRequest {
  /** The tool call id; decisions are keyed by it. */
  id: string;
  /** SHA-256 of the tool name and these exact arguments: the decision applies to this call only. */
  digest: string;
  tool: string;
  skill?: string;
  args: Record<string, unknown>;
  /** What the call will do, in one line fit for a prompt to the user. */
  description: string;
  /** Why approval is needed. */
  reason: 'raw-command' | 'approval-required' | 'mode-always';
}

export type ApprovalDecision =
  | { type: 'approve' }
  | { type: 'edit'; args: Record<string, unknown> }
  | { type: 'reject'; message?: string };

export type DoneStatus = 'ok' | 'interrupted' | 'error' | 'aborted';

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

export type AgentEvent =
  | { type: 'token'; text: string }
  | { type: 'message'; message: BaseMessage }
  | { type: 'tool-start'; id: string; name: string; skill?: string; args: Record<string, unknown> }
  | {
      type: 'tool-end';
      id: string;
      name: string;
      ok: boolean;
      output: string;
      truncated: boolean;
      durationMs: number;
    }
  | { type: 'approval-request'; requests: ApprovalRequest[] }
  | { type: 'usage'; inputTokens: number; outputTokens: number }
  | { type: 'error'; error: RunError }
  | { type: 'done'; status: DoneStatus };

export interface AgentStateView {
  messages: BaseMessage[];
  loadedSkills: string[];
  pendingApprovals: ApprovalRequest[];
}

export interface ToolInfo {
  name: string;
  skill?: string;
  description: string;
}

export interface Agent {
  stream(input: string, options: TurnOptions): AsyncIterable<AgentEvent>;
  resume(
    threadId: string,
    decisions: Record<string, ApprovalDecision>,
    options?: ResumeOptions,
  ): AsyncIterable<AgentEvent>;
  /** The thread's state now, or at an earlier step (`checkpointId`), e.g. the last good one of a damaged thread. */
  getState(threadId: string, options?: { checkpointId?: string }): Promise<AgentStateView>;
  toolsFor(threadId: string): Promise<ToolInfo[]>;
  close(): Promise<void>;
}
