import { AgentError } from './errors.js';
import { builtinTool } from './progressive.js';
import type { DeclaredTool, ToolBody } from './tool.js';
import type { AgentSpec } from './types.js';

export const TASK = 'task';
export const HANDOFF = 'handoff';

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
