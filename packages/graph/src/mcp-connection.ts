import type {
  McpElicitationRequest,
  McpElicitationResult,
  McpLoggingLevel,
  McpSamplingRequest,
  McpSamplingResult,
} from './mcp-protocol.js';

export type {
  McpElicitationRequest,
  McpElicitationResult,
  McpSamplingRequest,
  McpSamplingResult,
} from './mcp-protocol.js';

/** Who answers what a server asks of the client while it works (the running call's turn, else the application). */
export interface McpServerRequests {
  /** `sampling/createMessage`: a completion from birdie's model. Absent: the request is refused. */
  sample?(request: McpSamplingRequest, info: McpRequestInfo): Promise<McpSamplingResult>;
  /** `elicitation/create`: input from the user. Absent: declined. */
  elicit?(request: McpElicitationRequest, info: McpRequestInfo): Promise<McpElicitationResult>;
}

export interface McpRequestInfo {
  /** The MCP server's name (its skill's, made safe). */
  server: string;
  signal: AbortSignal;
}

/** A notification from a server: a log message, or news that its tools, resources or prompts changed. */
export type McpNotice =
  | { kind: 'log'; server: string; level: McpLoggingLevel; logger?: string; data: unknown }
  | { kind: 'tools-changed' | 'resources-changed' | 'prompts-changed'; server: string }
  | { kind: 'resource-updated'; server: string; uri: string };

/** What the user is asked about a server's sampling request: first the request, then the model's answer. */
export interface McpSamplingApproval {
  server: string;
  request: McpSamplingRequest;
  /** The model's answer, when asking whether it may be returned to the server. */
  answer?: string;
}

/**
 * What a front end does for MCP servers during a turn (`TurnOptions.mcp`). Without `approveSampling` a sampling
 * request is refused (nothing is sent to the model unseen); without `elicit` an elicitation is declined.
 */
export interface McpTurnHandlers {
  approveSampling?(ask: McpSamplingApproval): Promise<boolean>;
  elicit?(request: McpElicitationRequest, info: { server: string }): Promise<McpElicitationResult>;
}

/**
 * Where a server's requests and notices go while a call runs: the call's turn. Only the scope of the call running on
 * that server's connection hears them; one without a handler refuses (sampling) or declines (elicitation).
 */
export interface McpScope {
  /** The session the call belongs to: a resource it reads is subscribed for that session. */
  owner?: string;
  requests?: McpServerRequests;
  onNotice?: (notice: McpNotice) => void;
  /** The run the call belongs to: it holds the connection from its first call until it ends (see `McpTurn`). */
  turn?: McpTurn;
}

/**
 * One run (a turn or a resume) as the MCP manager sees it: from its first call on a connection until it ends, what
 * the server says while none of its calls runs (a log after a call returned, while the model thinks) is the run's,
 * unless another run holds the same connection (then it is nobody's).
 */
export interface McpTurn {
  /** True once the run ended: it holds no connection any more. */
  readonly ended: boolean;
  /** Told when the run first holds a connection (a call starts on it). */
  hold?(): void;
  onNotice(notice: McpNotice): void;
}

export interface McpClientHooks {
  requests(): McpServerRequests;
  roots(): Array<{ uri: string; name?: string }>;
  notice(notice: McpNotice): void;
}

/** What birdie declares: roots (with change news), sampling and form elicitation. */
export const CLIENT_CAPABILITIES = {
  roots: { listChanged: true },
  sampling: {},
  elicitation: { form: {} },
} as const;
