import type { StructuredToolInterface } from '@langchain/core/tools';
import type { BaseMessage } from '@langchain/core/messages';
import type { ApprovalMode, ApprovalRequest } from './types.js';

/** What a tool needs at execution time; nothing here is stored in state. */
export interface ExecContext {
  signal?: AbortSignal;
  cwd: string;
  threadId: string;
  /** Environment for skill tools (`BIRDIE_SESSION_ID` and the turn's `toolEnv`). */
  env?: Record<string, string>;
  /** The thread's history (for `load_skill`'s "already loaded" check). */
  messages: BaseMessage[];
  loadedSkills: string[];
  contextMessages: number;
}

export interface ToolOutcome {
  content: string;
  /** Skill names the call loaded (only `load_skill`). */
  loaded?: string[];
}

export type PrepareResult = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

/** One tool as the agent sees it in a turn: the LangChain tool for the model plus how to check and run a call. */
export interface RuntimeTool {
  name: string;
  description: string;
  skill?: string;
  kind: 'skill' | 'mcp' | 'builtin';
  /**
   * True when the tool bounds its own output (`load_skill`: a skill body, bounded by the parser's file size limit;
   * `read_reference`: `maxReferenceChars`), so the generic tool-output cut does not apply.
   */
  ownLimit?: boolean;
  /** Bound to the model (name, description, JSON Schema). */
  lc: StructuredToolInterface;
  /** Why this call needs approval under `mode`, or null. */
  approvalReason(mode: ApprovalMode): ApprovalRequest['reason'] | null;
  /** Defaults applied, then validated against the schema; a failure is a message the model can act on. */
  prepare(args: Record<string, unknown>): PrepareResult;
  /** Throws on failure; the tools node turns that into an error ToolMessage. */
  execute(args: Record<string, unknown>, context: ExecContext): Promise<ToolOutcome>;
}

export function defaultApproval(raw: boolean, declared: 'required' | 'never' | undefined) {
  return (mode: ApprovalMode): ApprovalRequest['reason'] | null => {
    if (mode === 'never') return null;
    if (mode === 'always') return 'mode-always';
    if (declared === 'required') return 'approval-required';
    if (raw && declared !== 'never') return 'raw-command';
    return null;
  };
}
