import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { HANDOFF, SWITCH_MODEL } from './builtin-names.js';
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

/** A chat model and the name birdie gives it in events (`openai:gpt-4o-mini`). */
export interface ResolvedModel {
  model: BaseChatModel;
  name: string;
}

/** What `modelFor` may answer: the model, or the model with its name. */
export type ModelForResult = BaseChatModel | ResolvedModel;

/** An agent file's settings for its model calls (`temperature`, `max_retries`), applied by the application. */
export interface ModelTuning {
  temperature?: number;
  maxRetries?: number;
}

/** The agent's tuning, or undefined when it sets none. */
function tuningOf(agent: ActiveAgent): ModelTuning | undefined {
  const spec = agent.spec;
  if (spec?.temperature === undefined && spec?.maxRetries === undefined) return undefined;
  return {
    ...(spec.temperature !== undefined ? { temperature: spec.temperature } : {}),
    ...(spec.maxRetries !== undefined ? { maxRetries: spec.maxRetries } : {}),
  };
}

/** A name for a model the application did not name: `<llm type>:<model>` from the LangChain object. */
export function modelNameOf(model: BaseChatModel): string {
  const fields = model as unknown as { model?: unknown; modelName?: unknown };
  const id =
    typeof fields.model === 'string'
      ? fields.model
      : typeof fields.modelName === 'string'
        ? fields.modelName
        : '';
  let type = 'model';
  try {
    type = model._llmType();
  } catch {
    // a model without a type name keeps the generic one
  }
  return id ? `${type}:${id}` : type;
}

function isResolved(value: ModelForResult): value is ResolvedModel {
  return (
    typeof value === 'object' && value !== null && 'model' in value && 'name' in value && !('invoke' in value)
  );
}

/** Who decides a call's model (see `forCall`). */
export interface ModelChoice {
  /** The turn's model (`TurnOptions.model`); undefined: none named. */
  turn?: string;
  /** True for the session's own thread, false for a subagent's. */
  session: boolean;
}

/**
 * The chat models of a graph: the default one, and those the application's `modelFor(spec)` resolves (agents'
 * `model`, the turn's model, tiers), once per spec string (a failure is not cached, so the next turn tries again).
 */
export class AgentModels {
  readonly #cache = new Map<string, Promise<ResolvedModel>>();
  readonly default: ResolvedModel;

  constructor(
    fallback: BaseChatModel,
    fallbackName: string | undefined,
    private readonly modelFor?: (spec: string, tuning?: ModelTuning) => Promise<ModelForResult>,
    /** Tier names `modelFor` resolves, offered to the model by `switch_model`. */
    readonly tiers: readonly string[] = [],
  ) {
    this.default = { model: fallback, name: fallbackName ?? modelNameOf(fallback) };
  }

  /** `spec` (with an agent's `tuning`) through `modelFor`, cached; the default model when there is no `modelFor`. */
  resolve(spec: string, tuning?: ModelTuning): Promise<ResolvedModel> {
    if (!this.modelFor) return Promise.resolve(this.default);
    const key = tuning ? `${spec}\u0000${JSON.stringify(tuning)}` : spec;
    let found = this.#cache.get(key);
    if (!found) {
      const resolve = this.modelFor;
      found = Promise.resolve()
        .then(() => (tuning ? resolve(spec, tuning) : resolve(spec)))
        .then((value) =>
          isResolved(value) ? value : { model: value, name: spec.includes(':') ? spec : modelNameOf(value) },
        );
      this.#cache.set(key, found);
      found.catch(() => this.#cache.delete(key));
    }
    return found;
  }

  async #resolveFor(spec: string, who: string, tuning?: ModelTuning): Promise<ResolvedModel> {
    try {
      return await this.resolve(spec, tuning);
    } catch (cause) {
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw new AgentError('model-error', `The model "${spec}" ${who} is not available: ${detail}`, {
        cause,
      });
    }
  }

  /**
   * The model of one call: a tier the model switched to in this run (`switch_model`); else, in the session's thread,
   * the turn's model; else the agent's own `model`; else the turn's model; else the default. An agent's `temperature`
   * and `max_retries` go with whichever it is (the default as the `default` tier, which `modelFor` always knows).
   */
  async forCall(
    agent: ActiveAgent,
    messages: readonly BaseMessage[],
    choice: ModelChoice,
  ): Promise<ResolvedModel> {
    const tuning = tuningOf(agent);
    const tier = this.tiers.length > 0 ? switchedTier(messages) : undefined;
    if (tier !== undefined) return this.#resolveFor(tier, `of tier ${tier}`, tuning);
    if (choice.session && choice.turn) return this.#resolveFor(choice.turn, 'of this turn', tuning);
    const spec = agent.spec?.model;
    if (spec && this.modelFor) return this.#resolveFor(spec, `of agent ${agent.name}`, tuning);
    if (choice.turn) return this.#resolveFor(choice.turn, 'of this turn', tuning);
    if (tuning && this.modelFor) return this.#resolveFor('default', `of agent ${agent.name}`, tuning);
    return this.default;
  }

  /** The model that writes summaries: the `fast` tier where there is one, else the model in use. */
  async summariser(current: ResolvedModel): Promise<ResolvedModel> {
    if (!this.tiers.includes('fast')) return current;
    return this.resolve('fast').catch(() => current);
  }
}

/** The tier a successful `switch_model` call of the current run (since the user's message) moved to. */
export function switchedTier(messages: readonly BaseMessage[]): string | undefined {
  const switched = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i] as BaseMessage;
    if (HumanMessage.isInstance(m)) return undefined;
    if (ToolMessage.isInstance(m) && m.name === SWITCH_MODEL && m.status !== 'error')
      switched.add(m.tool_call_id);
    else if (AIMessage.isInstance(m) && switched.size > 0) {
      const calls = (m.tool_calls ?? []).filter((c) => c.name === SWITCH_MODEL && c.id && switched.has(c.id));
      const tier = calls.at(-1)?.args?.tier;
      if (typeof tier === 'string') return tier;
    }
  }
  return undefined;
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
