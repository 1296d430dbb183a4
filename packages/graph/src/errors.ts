/** Stable codes: the CLI branches on these, never on messages. */
export type AgentErrorCode =
  | 'bad-thread-id'
  | 'bad-option'
  | 'busy'
  | 'nothing-to-resume'
  | 'missing-decision'
  | 'unknown-decision'
  | 'model-error'
  | 'recursion-limit'
  | 'aborted'
  | 'mcp-unavailable'
  | 'mcp-sdk-missing'
  | 'mcp-prompt-unsupported'
  | 'closed'
  | 'unknown-agent'
  | 'max-turns'
  | 'agent-timeout'
  | 'subagent-depth'
  | 'compaction-failed'
  | 'run-failed'
  | 'internal';

export class AgentError extends Error {
  override name = 'AgentError';
  readonly code: AgentErrorCode;

  constructor(code: AgentErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

export function isAgentError(value: unknown, code?: AgentErrorCode): value is AgentError {
  return value instanceof AgentError && (code === undefined || value.code === code);
}
