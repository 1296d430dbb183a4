import type { FileAccess } from '@birdie/entrypoints';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { BoundDecisions } from './approvals.js';
import type { CallsInProgress } from './cancelled-calls.js';
import type { Deadline } from './deadline.js';
import { AgentError } from './errors.js';
import type { McpTurn, McpTurnHandlers } from './mcp-connection.js';
import type {
  AgentEvent,
  AgentRegistrySnapshot,
  ApprovalMode,
  LongTermMemory,
  MemoryFile,
  MemoryItem,
  SessionApproval,
  TaskBook,
  ToolJournal,
} from './types.js';

/**
 * Per-turn data: LangGraph's runtime context, given to the run as `context` and never written to state or checkpoints.
 * The application's parts are checked when the turn starts (`agent.ts`), so a malformed one fails before any node
 * runs, and once: LangGraph does not parse it again at every run (the graph has no `contextSchema`).
 */
export interface TurnContext {
  snapshot: AgentRegistrySnapshot;
  approval: ApprovalMode;
  /** Raw commands ask whatever `approval` says (`TurnOptions.askRawCommands`). */
  askRawCommands: boolean;
  cwd: string;
  memory: MemoryItem[];
  /** Decisions given to `resume`, bound to the calls they answer (id and argument digest). */
  decisions: BoundDecisions;
  /** The environment skill tools run with: the turn's `toolEnv` plus `BIRDIE_SESSION_ID`. */
  toolEnv: Record<string, string>;
  /** Records each call before it starts and when it ends (the application's run log); undefined without one. */
  journal: ToolJournal | undefined;
  /** The session whose policy applies: the thread itself, or for a subagent's thread the session that started it. */
  policyKey: string;
  /** The agents above this thread's agent: empty for a session, the parent's path for a subagent. */
  path: string[];
  /** Project memory files, general to specific. */
  memoryFiles: MemoryFile[];
  /** The user's long-term memory for the builtin memory tools; undefined without one. */
  memoryStore: LongTermMemory | undefined;
  /** The user's scheduled tasks for the builtin task tools; undefined without them. */
  taskStore: TaskBook | undefined;
  /** The run's clock: the first node of an agent with `timeout` arms it. */
  deadline: Deadline | undefined;
  /** An agent a resume named: it takes over once the pending calls have run. */
  switchAgent: string | undefined;
  /** The application's file access for `node:` tools (an editor's buffers); undefined without one. */
  files: FileAccess | undefined;
  /** The turn's model (`TurnOptions.model`), resolved by the application's `modelFor`; undefined: none named. */
  model: string | undefined;
  /** For a subagent's thread: the tools approved for the session in the threads above it (see `SessionApproval`). */
  sessionApprovals: SessionApproval[] | undefined;
  /**
   * The calls this thread's last run (in this process) left waiting for the user's approval: if they are unanswered
   * now, the user moved on, and they never started.
   */
  unansweredApprovals?: ReadonlySet<string>;
  /** The answer streamed so far by the model call in progress: kept in the thread if the turn is cancelled. */
  partialAnswer?: { text: string };
  /** The tools step's calls while they run: answered from here if the turn is cancelled. */
  callsInProgress?: CallsInProgress;
  /** Tools bound whatever the tool budget (`TurnOptions.pinnedTools`); undefined: none. */
  pinnedTools?: string[];
  /** What the front end does for MCP servers' sampling and elicitation requests (`TurnOptions.mcp`). */
  mcp?: McpTurnHandlers;
  /** This run as MCP connections see it: what a server it used says between its calls is queued here. */
  mcpTurn?: McpTurn;
}

export type NodeContext = TurnContext & { threadId: string; signal?: AbortSignal };

/** The turn's context and its thread, as a node sees them (each node of a run gets a signal of its own). */
export function turnContext(config: LangGraphRunnableConfig): NodeContext {
  const context = config.context as TurnContext | undefined;
  if (!context?.snapshot) throw new AgentError('internal', 'The run has no turn context.');
  // Copied with `Object.assign` and two stores: a third of the time of the spread with a conditional part it replaces
  // (about 3 against 7 µs a node for the ~20 fields).
  const view = Object.assign({}, context) as NodeContext;
  view.threadId = String(config.configurable?.thread_id);
  if (config.signal) view.signal = config.signal;
  return view;
}

/** Custom-stream payloads are wrapped so the agent can tell its own events from anything else a node writes. */
export interface CustomEnvelope {
  birdie?: AgentEvent;
  /** Which agent the node runs as: the events after it come from that agent. */
  birdieAgent?: string;
  /** The model call that produced the next AIMessage: its model, and what was sent (for its `usage` event). */
  birdieCall?: { model: string; context: { tokens: number; window: number } };
}

export function emit(config: LangGraphRunnableConfig, event: AgentEvent): void {
  config.writer?.({ birdie: event } satisfies CustomEnvelope);
}

/** Tells the event stream which agent the events that follow belong to (only when a named agent runs). */
export function emitAgent(config: LangGraphRunnableConfig, name: string | undefined): void {
  if (name) config.writer?.({ birdieAgent: name } satisfies CustomEnvelope);
}
