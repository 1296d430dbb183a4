import { type AgentEvent, agentEventJson } from '@birdie/graph/event-json';

export { messageJson, turnResultJson } from '@birdie/graph/event-json';

/** One agent event as one JSON line (the shape lives in `@birdie/graph/event-json`, shared with `birdie serve`). */
export function eventJson(event: AgentEvent): string {
  return JSON.stringify(agentEventJson(event));
}
