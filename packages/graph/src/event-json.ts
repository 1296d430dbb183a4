// The agent's events as plain JSON: one shape for every application that prints or sends them (`birdie run --json`,
// the HTTP API's server-sent events). Loads nothing: the `@birdie/graph/event-json` subpath imports no LangChain.
import type { AgentEvent, DoneStatus } from './types.js';

export type { McpElicitationResult, McpSamplingApproval, McpTurnHandlers } from './mcp-connection.js';
export type { AgentEvent, ApprovalDecision, ApprovalRequest, DoneStatus } from './types.js';

/**
 * Whether an event comes from a subagent (the agent of a `task` call) rather than the session's agent: its agent path
 * names more than one agent. Only a named agent delegates (the default agent has no `task` tool), so the session's
 * agent, also after a handoff, has a path of at most one name. A subagent's text is its `task` call's result, not
 * the answer: an application that shows the answer leaves it out.
 */
export function fromSubagent(event: { agent?: readonly string[] | undefined }): boolean {
  return (event.agent?.length ?? 0) > 1;
}

/** A LangChain message (structurally) as plain JSON: role, text, and the tool-call fields a script may want. */
export function messageJson(message: {
  getType(): string;
  text: string;
  id?: string | undefined;
  [key: string]: unknown;
}): Record<string, unknown> {
  const m = message as unknown as {
    tool_calls?: Array<{ id?: string; name: string; args: unknown }>;
    tool_call_id?: string;
    name?: string;
    status?: string;
    response_metadata?: { cancelled?: boolean };
  };
  const out: Record<string, unknown> = { role: message.getType(), content: message.text };
  // An answer cut short by Ctrl+C (kept as far as it was streamed).
  if (m.response_metadata?.cancelled === true) out.cancelled = true;
  if (message.id) out.id = message.id;
  if (m.tool_calls?.length)
    out.tool_calls = m.tool_calls.map((c) => ({ id: c.id, name: c.name, args: c.args }));
  if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
  if (m.name) out.name = m.name;
  if (m.status) out.status = m.status;
  return out;
}

/** One agent event as a JSON-ready object (a message event carries its message as `messageJson` gives it). */
export function agentEventJson(event: AgentEvent): Record<string, unknown> {
  if (event.type === 'message') {
    return {
      type: 'message',
      ...(event.agent ? { agent: event.agent } : {}),
      message: messageJson(event.message as never),
    };
  }
  return { ...event };
}

/** How a turn ended, as its last event: `status` is the agent's, or `rejected` when the user refused a call. */
export interface TurnResultJson {
  type: 'result';
  status: DoneStatus | 'cancelled' | 'rejected';
  session: string;
  inputTokens: number;
  outputTokens: number;
}

export function turnResultJson(r: {
  status: DoneStatus | 'cancelled' | 'rejected';
  session: string;
  inputTokens: number;
  outputTokens: number;
}): TurnResultJson {
  return {
    type: 'result',
    status: r.status,
    session: r.session,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
  };
}
