import type {
  AgentEvent,
  ApprovalDecision,
  ApprovalRequest,
  DoneStatus,
  McpTurnHandlers,
} from '@birdie/graph/event-json';
import type { Session, SessionLease, Store } from '@birdie/store';
import type { AgentInfo, SkillChange, SkillInfo } from './skills.js';

/** What a turn starts from: the user's text, or decisions for the session's pending approvals. */
export type TurnInput = string | { decisions: Record<string, ApprovalDecision> };

/**
 * How a turn ended, in the run log's words: the graph's end, `cancelled` (a cancel request or a stop: the graph's
 * `aborted`), or `rejected` when the user refused a call.
 */
export type TurnStatus = Exclude<DoneStatus, 'aborted'> | 'cancelled' | 'rejected';

/** How a turn ended, as the runtime reports it. */
export interface TurnSummary {
  status: TurnStatus;
  inputTokens: number;
  outputTokens: number;
  error?: string;
  errorCode?: string;
  /** The approvals the turn stopped for (status `interrupted`): answer them with `POST …/approvals`. */
  pending?: ApprovalRequest[];
}

/**
 * An event of a turn: the agent's events, with exactly one `done` at the turn's end (a turn with approvals streams
 * the graph more than once), whose status may be `rejected` when the user refused a call.
 */
export type TurnEvent = Exclude<AgentEvent, { type: 'done' }> | { type: 'done'; status: TurnStatus };

export interface TurnHandlers {
  signal: AbortSignal;
  /**
   * The folder every tool of the turn must work in, and the root file tools are confined to: the user's (or the
   * session's) workspace, given when the server has workspaces (`ServerOptions.workspaces`). Made before the turn.
   */
  workspace?: string;
  /** Called once the session's lease is held, before the turn reads or writes anything. */
  onLeased(lease: SessionLease): void;
  onEvent(event: TurnEvent): void;
  /** MCP servers' sampling and elicitation requests, passed to the API client (`mcp-request` events). */
  mcp?: McpTurnHandlers;
}

/**
 * The agent runtime the server drives, given by the application (the `birdie` CLI wires its own: registry, store,
 * providers and graph). The server holds no session state: everything it reads goes through the store, and a turn
 * takes the session's lease, so any worker can serve any request.
 */
export interface ServeRuntime {
  readonly store: Store;
  /** `vendor/model`, for the `session` event. */
  readonly provider: string;
  /**
   * Makes a session of `userId`, with these skills enabled and (optionally) the agent that starts it. An unknown
   * skill or agent throws `ApiError('invalid-request')`, one the operator's policy does not allow API sessions
   * `ApiError('skill-not-allowed' | 'agent-not-allowed')`, before anything is stored: a request narrows the
   * operator's policy, it never widens it (and nothing asked for is silently dropped).
   */
  createSession(
    userId: string,
    request: { agent?: string; enable?: string[]; title?: string },
  ): Promise<Session>;
  /** The skills the operator's policy lets `userId`'s sessions enable (`GET /v1/skills`). */
  skills(userId: string): Promise<SkillInfo[]>;
  /** The agents the operator's policy lets `userId` start sessions with (`GET /v1/agents`). */
  agents(userId: string): Promise<AgentInfo[]>;
  /**
   * Switches skills on and off in the session (the caller holds its lease) and returns its grants. An unknown skill
   * throws `ApiError('invalid-request')`, enabling one the operator's policy does not allow API sessions
   * `ApiError('skill-not-allowed')`, before anything changes. Switching off is always allowed (it only narrows).
   */
  setSkills(session: Session, change: SkillChange): Promise<{ enabled: string[]; disabled: string[] }>;
  /** The session's conversation as JSON messages (`birdie sessions show --json`), and its grants. */
  history(
    session: Session,
  ): Promise<{ messages: Record<string, unknown>[]; grants: { enabled: string[]; disabled: string[] } }>;
  /** The approvals the session waits for (empty when none). */
  pendingApprovals(session: Session): Promise<ApprovalRequest[]>;
  /** Deletes the session: its history, grants, runs and files, and whatever this worker keeps of it locally. */
  deleteSession(session: Session): Promise<void>;
  /**
   * One turn through the application's one turn path (lease, run log, tool journal, approvals). Rejects only when
   * the session cannot be had (`StoreError('session-busy')`, before `onLeased`) or the run cannot be logged.
   * A turn that needs approval ends with `pending`: the runtime never decides for the user.
   */
  runTurn(session: Session, input: TurnInput, handlers: TurnHandlers): Promise<TurnSummary>;
}
