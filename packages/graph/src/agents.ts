import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { HANDOFF } from './agent-tools.js';
import { AgentError } from './errors.js';
import type { AgentRegistrySnapshot, AgentSpec } from './types.js';

/** Who runs a node: a named agent and its definition, or the default agent (neither). */
export interface ActiveAgent {
  name?: string;
  spec?: AgentSpec;
}

const DEFAULT_AGENT: ActiveAgent = Object.freeze({});

/** The agent named in the thread's state, looked up in the turn's snapshot. */
export function activeAgent(name: string | undefined, snapshot: AgentRegistrySnapshot): ActiveAgent {
  if (!name) return DEFAULT_AGENT;
  const spec = snapshot.getAgent?.(name);
  // Falling back to the default agent could give the thread more tools than its agent had: refuse instead.
  if (!spec)
    throw new AgentError(
      'unknown-agent',
      `The agent "${name}" is not defined (any more): name another agent for this turn, or null for the default agent.`,
    );
  return { name, spec };
}

/**
 * Each agent's chat model: the application's `modelFor(spec)` once per spec string (a failure is not cached, so
 * the next turn tries again), the default model for agents that name none or when there is no `modelFor`.
 */
export class AgentModels {
  readonly #cache = new Map<string, Promise<BaseChatModel>>();

  constructor(
    readonly fallback: BaseChatModel,
    private readonly modelFor?: (spec: string) => Promise<BaseChatModel>,
  ) {}

  async get(agent: ActiveAgent): Promise<BaseChatModel> {
    const spec = agent.spec?.model;
    if (!spec || !this.modelFor) return this.fallback;
    let model = this.#cache.get(spec);
    if (!model) {
      const resolve = this.modelFor;
      model = Promise.resolve().then(() => resolve(spec));
      this.#cache.set(spec, model);
      model.catch(() => this.#cache.delete(spec));
    }
    try {
      return await model;
    } catch (cause) {
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw new AgentError(
        'model-error',
        `The model "${spec}" of agent ${agent.name} is not available: ${detail}`,
        { cause },
      );
    }
  }
}

/**
 * Model calls the current agent has made in this run: AI messages since the user's last message or the last
 * handoff (the new agent starts its own count).
 */
export function modelTurns(messages: readonly BaseMessage[]): number {
  let turns = 0;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (HumanMessage.isInstance(m)) break;
    if (ToolMessage.isInstance(m) && m.name === HANDOFF && m.status !== 'error') break;
    if (AIMessage.isInstance(m)) turns += 1;
  }
  return turns;
}

export function maxTurnsError(agent: ActiveAgent, limit: number): AgentError {
  return new AgentError(
    'max-turns',
    `Agent ${agent.name} stopped after ${limit} model turns without a final answer (its max_turns).`,
  );
}
