import { messageJson } from '@birdie/graph/event-json';
import type { History } from './history.js';

/**
 * A session's conversation as JSON objects in order (`birdie sessions show --json`): each message as `messageJson`
 * gives it, and a subagent's messages right after its task call's tool message, each naming that call (`subagentOf`).
 */
export function historyJson(history: Pick<History, 'messages' | 'subagents'>, parent?: string): object[] {
  return history.messages.flatMap((m) => {
    const json = { ...messageJson(m as never), ...(parent ? { subagentOf: parent } : {}) };
    const callId = (m as { tool_call_id?: string }).tool_call_id;
    const child = callId ? history.subagents?.get(callId) : undefined;
    return child ? [json, ...historyJson(child, callId)] : [json];
  });
}
