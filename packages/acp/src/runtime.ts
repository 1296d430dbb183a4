import type {
  AgentEvent,
  ApprovalDecision,
  ApprovalMode,
  ApprovalRequest,
  DoneStatus,
  McpTurnHandlers,
  TurnOptions,
} from '@birdie/graph';
import type { BaseMessage } from '@langchain/core/messages';

/** Text files through the client (an editor's buffers); see `FileAccess` in `@birdie/entrypoints`. */
export type FileAccess = NonNullable<TurnOptions['files']>;

/** One turn, as the ACP agent asks the application to run it. */
export interface AcpTurnOptions {
  approval: ApprovalMode;
  signal: AbortSignal;
  /** The session's working directory, as the client gave it. */
  cwd: string;
  /** The client's file access, when it offers reading and writing text files. */
  files?: FileAccess;
  onEvent(event: AgentEvent): void;
  /** Every approval of the turn, skill tools' and the model's own agent's alike: one decision per request id. */
  decide(requests: ApprovalRequest[]): Promise<Record<string, ApprovalDecision>>;
  /** MCP servers' sampling requests and forms, asked of the editor (forms only when it can show them). */
  mcp?: McpTurnHandlers;
}

/** One session as `session/list` shows it. */
export interface AcpSessionInfo {
  id: string;
  title?: string;
  updatedAt?: Date;
}

export interface AcpTurnResult {
  status: DoneStatus | 'rejected';
  error?: string;
  /** The stable code of `error` (`session-busy`, `model-error`, `disk-full`, …). */
  errorCode?: string;
}

/**
 * What `@birdie/acp` needs from the application that runs it (birdie's CLI gives its runtime: registry, store,
 * provider and agent, wired once). Session ids are the application's: the ACP session id is the birdie session id.
 * The library never touches a store, a terminal or the process; everything goes through these.
 */
export interface AcpRuntime {
  /** `agentInfo` of the initialize answer. */
  readonly info: { name: string; version: string };
  /** The working folder of sessions `session/list` cannot place (birdie's sessions are not bound to one). */
  readonly cwd: string;
  /** The approval mode a session starts in (the user's `approval` setting). */
  readonly defaultApproval: ApprovalMode;
  /** A new session of the user; its id becomes the ACP session id. */
  createSession(): Promise<string>;
  /** True when the user has this session (ids from the client are data: checked before any use). */
  hasSession(id: string): Promise<boolean>;
  /** The session's conversation, oldest first, for `session/load` to replay. */
  history(id: string): Promise<BaseMessage[]>;
  /** The user's sessions, most recent first, for `session/list`. */
  listSessions(): Promise<AcpSessionInfo[]>;
  /**
   * The tools the user allowed for the rest of the session in an earlier connection, each with the skill file
   * (`skillIdentity`) it was allowed from: `session/load` and `session/resume` keep them. Kept by the application
   * (birdie: in the session's thread, bound to the skill file), since a connection's memory ends with it.
   */
  sessionGrants(id: string): Promise<Array<{ tool: string; identity: string }>>;
  /**
   * Runs one turn on the session; throws only when the turn cannot start (the session is busy elsewhere), with the
   * stable code of why as the error's `code` (`session-busy`, …; the prompt's error sends it as `data.code`; an error
   * without one is `internal`).
   */
  runTurn(id: string, text: string, options: AcpTurnOptions): Promise<AcpTurnResult>;
  /**
   * The file a skill is provided by now (`layer:path`, the registry's `skillIdentity`), which an "allow always"
   * answer is bound to; undefined for tools of no skill file.
   */
  skillIdentity(skill: string): string | undefined;
  /** A line for the application's log (the CLI: stderr; stdout carries the protocol only). */
  log(line: string): void;
}
