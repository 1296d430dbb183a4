import type { FileAccess } from '@birdie/entrypoints';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { z } from 'zod';
import type { BoundDecisions } from './approvals.js';
import { AgentError } from './errors.js';
import type { AgentEvent, AgentRegistrySnapshot, ApprovalMode, MemoryItem, ToolJournal } from './types.js';

/**
 * Per-turn data: LangGraph's runtime context (`contextSchema`), given to `stream` as `context` for one run and never
 * written to state or checkpoints.
 */
export interface TurnContext {
  snapshot: AgentRegistrySnapshot;
  approval: ApprovalMode;
  cwd: string;
  memory: MemoryItem[];
  /** Decisions given to `resume`, bound to the calls they answer (id and argument digest). */
  decisions: BoundDecisions;
  /** The environment skill tools run with: the turn's `toolEnv` plus `BIRDIE_SESSION_ID`. */
  toolEnv: Record<string, string>;
  /** Records each call before it starts and when it ends (the application's run log); undefined without one. */
  journal: ToolJournal | undefined;
  /** The application's file access for `node:` tools (an editor's buffers); undefined without one. */
  files: FileAccess | undefined;
}

const object = <T>() => z.custom<T>((value) => value !== null && typeof value === 'object');

/** Checked by LangGraph when a run starts, so a malformed context fails before any node runs. */
export const TurnContextSchema = z.object({
  snapshot: object<AgentRegistrySnapshot>(),
  approval: z.enum(['ask', 'always', 'never']),
  cwd: z.string(),
  memory: z.array(z.custom<MemoryItem>()),
  decisions: object<BoundDecisions>(),
  toolEnv: z.record(z.string(), z.string()),
  journal: object<ToolJournal>().optional(),
  files: object<FileAccess>().optional(),
});

/** The turn's context and its thread, as a node sees them. */
export function turnContext(
  config: LangGraphRunnableConfig,
): TurnContext & { threadId: string; signal?: AbortSignal } {
  const context = config.context as TurnContext | undefined;
  if (!context?.snapshot) throw new AgentError('internal', 'The run has no turn context.');
  const threadId = String(config.configurable?.thread_id);
  return { ...context, threadId, ...(config.signal ? { signal: config.signal } : {}) };
}

/** Custom-stream payloads are wrapped so the agent can tell its own events from anything else a node writes. */
export interface CustomEnvelope {
  birdie: AgentEvent;
}

export function emit(config: LangGraphRunnableConfig, event: AgentEvent): void {
  config.writer?.({ birdie: event } satisfies CustomEnvelope);
}
