import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { AgentError } from './errors.js';
import type {
  AgentEvent,
  AgentRegistrySnapshot,
  ApprovalDecision,
  ApprovalMode,
  MemoryItem,
} from './types.js';

/** Per-turn context: lives in `config.configurable` for the duration of a run, never in state or checkpoints. */
export interface TurnContext {
  threadId: string;
  snapshot: AgentRegistrySnapshot;
  approval: ApprovalMode;
  cwd: string;
  memory: MemoryItem[];
  /** Decisions given to `resume`, by tool call id; they bind whatever the approval mode of the resuming turn. */
  decisions: Record<string, ApprovalDecision>;
  /** The environment skill tools run with: the turn's `toolEnv` plus `BIRDIE_SESSION_ID`. */
  toolEnv: Record<string, string>;
  signal?: AbortSignal;
}

export const CONFIG_KEYS = {
  snapshot: 'birdie_snapshot',
  approval: 'birdie_approval',
  cwd: 'birdie_cwd',
  memory: 'birdie_memory',
  decisions: 'birdie_decisions',
  toolEnv: 'birdie_tool_env',
} as const;

export function turnContext(config: LangGraphRunnableConfig): TurnContext {
  const c = config.configurable ?? {};
  const snapshot = c[CONFIG_KEYS.snapshot] as AgentRegistrySnapshot | undefined;
  if (!snapshot) throw new AgentError('internal', 'The run has no registry snapshot in its config.');
  const threadId = String(c.thread_id);
  return {
    threadId,
    snapshot,
    approval: (c[CONFIG_KEYS.approval] as ApprovalMode | undefined) ?? 'ask',
    cwd: (c[CONFIG_KEYS.cwd] as string | undefined) ?? process.cwd(),
    memory: (c[CONFIG_KEYS.memory] as MemoryItem[] | undefined) ?? [],
    decisions: (c[CONFIG_KEYS.decisions] as Record<string, ApprovalDecision> | undefined) ?? {},
    // Set last: a tool always learns the real thread, even if the application's env names another one.
    toolEnv: {
      ...((c[CONFIG_KEYS.toolEnv] as Record<string, string> | undefined) ?? {}),
      BIRDIE_SESSION_ID: threadId,
    },
    ...(config.signal ? { signal: config.signal } : {}),
  };
}

/** Custom-stream payloads are wrapped so the agent can tell its own events from anything else a node writes. */
export interface CustomEnvelope {
  birdie: AgentEvent;
}

export function emit(config: LangGraphRunnableConfig, event: AgentEvent): void {
  config.writer?.({ birdie: event } satisfies CustomEnvelope);
}
