import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from '@langchain/core/messages';
import { REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { isApprovalInterrupt } from './approvals.js';
import type { CustomEnvelope } from './turn-context.js';
import type { AgentEvent } from './types.js';

/**
 * Turns LangGraph's `[mode, chunk]` stream (modes `updates` and `custom`) into the agent's typed events. Tokens and
 * tool progress arrive as `custom` writes from the nodes; messages, usage and interrupts come from `updates`.
 */
export class EventMapper {
  interrupted = false;
  /** The named agent whose nodes run now (set by the nodes' markers); undefined: the default agent. */
  current: string | undefined;
  readonly #errors = new Set<string>();
  /** The model call whose reply comes next in `updates` (the agent node says it just before returning). */
  #call: CustomEnvelope['birdieCall'];

  /** `base`: the agents above this run's thread (a subagent's parent path); empty for a session. */
  constructor(private readonly base: readonly string[] = []) {}

  map(mode: string, chunk: unknown): AgentEvent[] {
    const events =
      mode === 'custom'
        ? this.#custom(chunk)
        : mode === 'updates'
          ? this.#updates(chunk as Record<string, unknown>)
          : [];
    return this.current === undefined ? events : events.map((e) => this.stamp(e));
  }

  /** The event with the path of the agent that produced it; a subagent's events already carry theirs. */
  stamp(event: AgentEvent): AgentEvent {
    if (event.agent || this.current === undefined) return event;
    return { ...event, agent: [...this.base, this.current] };
  }

  #custom(chunk: unknown): AgentEvent[] {
    const envelope = chunk as CustomEnvelope | null;
    if (envelope?.birdieAgent !== undefined) {
      this.current = envelope.birdieAgent;
      return [];
    }
    if (envelope?.birdieCall !== undefined) {
      this.#call = envelope.birdieCall;
      return [];
    }
    const event = envelope?.birdie;
    if (!event) return [];
    if (event.type === 'error') {
      // One error per failing server per run, however many model steps the run takes.
      const key = `${event.error.code}\u0000${event.error.message}`;
      if (this.#errors.has(key)) return [];
      this.#errors.add(key);
    }
    return [event];
  }

  #updates(chunk: Record<string, unknown>): AgentEvent[] {
    const events: AgentEvent[] = [];
    for (const [node, update] of Object.entries(chunk ?? {})) {
      if (node === '__interrupt__') {
        const requests = (update as Array<{ value: unknown }>).flatMap((i) =>
          isApprovalInterrupt(i.value) ? i.value.requests : [],
        );
        if (requests.length > 0) {
          this.interrupted = true;
          events.push({ type: 'approval-request', requests });
        }
        continue;
      }
      const messages = (update as { messages?: BaseMessage[] } | null)?.messages;
      if (!Array.isArray(messages)) continue;
      // A repair removes and re-appends later messages: those are not new, only the placeholders are.
      const removed = new Set<string | undefined>(
        messages.filter((m) => RemoveMessage.isInstance(m)).map((m) => m.id),
      );
      const rewrite = removed.has(REMOVE_ALL_MESSAGES);
      for (const message of messages) {
        if (
          RemoveMessage.isInstance(message) ||
          HumanMessage.isInstance(message) ||
          (message.id !== undefined && removed.has(message.id))
        )
          continue;
        if (rewrite && !message.id?.startsWith('repair-')) continue;
        events.push({ type: 'message', message });
        const usage = AIMessage.isInstance(message) ? message.usage_metadata : undefined;
        const call = AIMessage.isInstance(message) ? this.#call : undefined;
        if (AIMessage.isInstance(message)) this.#call = undefined;
        if (usage)
          events.push({
            type: 'usage',
            inputTokens: usage.input_tokens,
            outputTokens: usage.output_tokens,
            model: call?.model ?? 'unknown',
            ...(call ? { context: call.context } : {}),
          });
      }
    }
    return events;
  }
}
