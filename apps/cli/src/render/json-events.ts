import type { AgentEvent } from '@birdie/graph';
import type { TurnEvent } from '../turn.js';

/** A LangChain message as plain JSON: role, text, and the tool-call fields a script may want. */
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
  };
  const out: Record<string, unknown> = { role: message.getType(), content: message.text };
  if (message.id) out.id = message.id;
  if (m.tool_calls?.length)
    out.tool_calls = m.tool_calls.map((c) => ({ id: c.id, name: c.name, args: c.args }));
  if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
  if (m.name) out.name = m.name;
  if (m.status) out.status = m.status;
  return out;
}

/** One agent event as one JSON line. */
export function eventJson(event: AgentEvent | TurnEvent): string {
  if (event.type === 'message')
    return JSON.stringify({ type: 'message', message: messageJson(event.message as never) });
  return JSON.stringify(event);
}
