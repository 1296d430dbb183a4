import { type AgentEvent, agentEventJson } from '@birdie/graph/event-json';
import type { TurnEvent } from '@birdie/runtime/turn';

export { messageJson, turnResultJson } from '@birdie/graph/event-json';

/**
 * One event as one JSON line (the shape lives in `@birdie/graph/event-json`, shared with `birdie serve`); a turn's
 * one `done` may carry `rejected`, which no graph stream does.
 */
export function eventJson(event: AgentEvent | TurnEvent): string {
  return JSON.stringify(event.type === 'done' ? event : agentEventJson(event));
}
