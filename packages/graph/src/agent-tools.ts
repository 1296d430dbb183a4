import { HANDOFF, SWITCH_MODEL, TASK } from './builtin-names.js';
import { AgentError } from './errors.js';
import { builtinTool } from './progressive.js';
import type { DeclaredTool, ToolBody } from './tool.js';
import type { AgentSpec } from './types.js';

export { HANDOFF, SWITCH_MODEL, TASK };

const roster = (agents: readonly AgentSpec[]) =>
  agents.map((a) => `- ${a.name}: ${a.description.replace(/\s+/g, ' ').trim()}`).join('\n');

/**
 * `task({agent, prompt})`: runs one of the agent's subagents on a thread of its own to its end and returns its
 * final answer. The subagent sees only the prompt, so the description insists on a self-contained one.
 */
export function createTaskTool(agents: readonly AgentSpec[]): DeclaredTool {
  const schema = {
    type: 'object',
    properties: {
      agent: { type: 'string', enum: agents.map((a) => a.name), description: 'The agent to run' },
      prompt: {
        type: 'string',
        description:
          'The task, self-contained: the agent sees nothing of this conversation but this text, and answers once',
      },
    },
    required: ['agent', 'prompt'],
    additionalProperties: false,
  };
  const description = `Give a task to another agent and get its final answer. It works on its own with its own tools and sees only your prompt. Several task calls in one step run at the same time.\nAgents:\n${roster(agents)}`;
  const execute: ToolBody['execute'] = async (args, context) => {
    if (!context.delegate || !context.callId)
      throw new AgentError('internal', 'A subagent can only run inside a turn of the agent.');
    return context.delegate({
      agent: String(args.agent),
      prompt: String(args.prompt),
      callId: context.callId,
    });
  };
  return builtinTool(TASK, description, schema, execute);
}

/**
 * `handoff({to, message?})`: the conversation goes on with another agent — its prompt, model and tools — from the
 * next model call on, over the same history; the thread remembers it for the next turns.
 */
export function createHandoffTool(agents: readonly AgentSpec[]): DeclaredTool {
  const schema = {
    type: 'object',
    properties: {
      to: { type: 'string', enum: agents.map((a) => a.name), description: 'The agent to hand over to' },
      message: {
        type: 'string',
        description: 'What the next agent should know or do first (it also sees the whole conversation)',
      },
    },
    required: ['to'],
    additionalProperties: false,
  };
  const description = `Hand the conversation to another agent: it answers from the next step on, with its own instructions and tools, and sees the whole conversation. The user keeps talking to it until it hands back.\nAgents:\n${roster(agents)}`;
  const execute: ToolBody['execute'] = async (args) => {
    const to = String(args.to);
    const message = typeof args.message === 'string' && args.message.trim() ? args.message.trim() : '';
    return {
      content: `Handed the conversation to ${to}.${message ? `\nMessage for ${to}: ${message}` : ''}`,
      handoff: to,
    };
  };
  return builtinTool(HANDOFF, description, schema, execute);
}

const TIER_HINTS: Record<string, string> = {
  fast: 'a quicker, cheaper model for simple or mechanical steps',
  default: 'the usual model',
  strong: 'a more capable model for hard reasoning, tricky code or a plan',
};

/**
 * `switch_model({tier, reason})`: the rest of this turn runs on another model tier, from the next step on; the next
 * user message starts again on the session's model. `check` resolves the tier, so a tier that cannot be used is a
 * failed call (the turn goes on with the current model) rather than a failed next step.
 */
export function createSwitchModelTool(
  tiers: readonly string[],
  check: (tier: string) => Promise<string>,
): DeclaredTool {
  const schema = {
    type: 'object',
    properties: {
      tier: { type: 'string', enum: [...tiers], description: 'The model tier to use from your next step on' },
      reason: { type: 'string', description: 'Why this tier suits the rest of the task, in one sentence' },
    },
    required: ['tier', 'reason'],
    additionalProperties: false,
  };
  const list = tiers.map((t) => `- ${t}${TIER_HINTS[t] ? `: ${TIER_HINTS[t]}` : ''}`).join('\n');
  const description = `Move the rest of this turn to another model tier (the next user message starts on the usual model again). Switch when the task clearly needs it, not back and forth.\nTiers:\n${list}`;
  const execute: ToolBody['execute'] = async (args) => {
    const tier = String(args.tier);
    const name = await check(tier);
    return { content: `Switched to the ${tier} model (${name}) for the rest of this turn.` };
  };
  return builtinTool(SWITCH_MODEL, description, schema, execute);
}
