import type { Skill, SkillTool } from '@birdie/skill-parser';
import { describeBuiltinError } from './progressive.js';
import { TASK_BUILTINS } from './task-tools.js';
import { type DeclaredTool, declareTool, defaultApproval, type ToolBody } from './tool.js';
import type { LongTermMemory, MemoryRecord } from './types.js';

export const BUILTIN_SCHEME = 'builtin:';

/** The target of a `builtin:` entrypoint (`remember`), or undefined for any other scheme. */
export function builtinTarget(tool: SkillTool): string | undefined {
  const entrypoint = tool.entrypoint.trim();
  return entrypoint.startsWith(BUILTIN_SCHEME) ? entrypoint.slice(BUILTIN_SCHEME.length).trim() : undefined;
}

interface MemoryBuiltin {
  parameters: Record<string, unknown>;
  /** Writes to the user's memory ask first (unless the turn's mode is `never`); reading follows the skill. */
  writes: boolean;
  execute(args: Record<string, unknown>, memory: LongTermMemory): Promise<string>;
}

const line = (r: MemoryRecord) => `- [${r.id}] ${r.content.replace(/\s+/g, ' ').trim()}`;

/**
 * The builtin tools a skill can switch on with `entrypoint: builtin:<name>` (exactly the names of
 * `@birdie/entrypoints`' `BUILTIN_ENTRYPOINTS`, which the registry's load-time check accepts; a test pins it). Their schemas are fixed here (a
 * skill's `schema` for them is documentation only), so a skill cannot change what they accept.
 */
export const MEMORY_BUILTINS: Readonly<Record<string, MemoryBuiltin>> = Object.freeze({
  remember: {
    writes: true,
    parameters: {
      type: 'object',
      properties: {
        content: {
          type: 'string',
          description: 'One fact about the user or their preferences, as a short self-contained sentence',
        },
      },
      required: ['content'],
      additionalProperties: false,
    },
    async execute(args, memory) {
      const content = String(args.content).trim();
      if (!content) throw new Error('Nothing to remember: content is empty.');
      const record = await memory.add(content);
      return `Remembered [${record.id}]: ${record.content}`;
    },
  },
  recall: {
    writes: false,
    parameters: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          description: 'Words the memories must contain (any case); leave it out to list everything',
        },
      },
      additionalProperties: false,
    },
    async execute(args, memory) {
      const all = await memory.list();
      const words =
        typeof args.query === 'string' ? args.query.toLowerCase().split(/\s+/).filter(Boolean) : [];
      const found = all.filter((r) => words.every((w) => r.content.toLowerCase().includes(w)));
      if (found.length === 0)
        return words.length > 0
          ? `Nothing remembered matches "${String(args.query)}".`
          : 'Nothing is remembered yet.';
      return found.map(line).join('\n');
    },
  },
  forget: {
    writes: true,
    parameters: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The id in brackets that recall shows, e.g. "12"' },
      },
      required: ['id'],
      additionalProperties: false,
    },
    async execute(args, memory) {
      const id = String(args.id).trim();
      if (!(await memory.remove(id))) throw new Error(`No memory has the id ${JSON.stringify(id)}.`);
      return `Forgot [${id}].`;
    },
  },
});

/** When a `builtin:<target>` tool asks: a write always (a skill's `approval: never` cannot lift it), a read when the skill says so. */
export function builtinApproval(target: string, tool: SkillTool) {
  const builtin = Object.hasOwn(MEMORY_BUILTINS, target)
    ? MEMORY_BUILTINS[target]
    : Object.hasOwn(TASK_BUILTINS, target)
      ? TASK_BUILTINS[target]
      : undefined;
  return defaultApproval(false, builtin?.writes ? 'required' : tool.approval);
}

/**
 * A skill tool whose entrypoint is `builtin:<name>`: the graph's implementation under the skill's tool name and
 * description. It reaches the long-term memory the turn was given (`memoryStore`); without one it says so.
 */
export function createBuiltinSkillTool(
  skill: Skill,
  tool: SkillTool,
  target: string,
  maxOutputChars: number,
): DeclaredTool {
  const memoryBuiltin = Object.hasOwn(MEMORY_BUILTINS, target) ? MEMORY_BUILTINS[target] : undefined;
  const taskBuiltin = Object.hasOwn(TASK_BUILTINS, target) ? TASK_BUILTINS[target] : undefined;
  const builtin = memoryBuiltin ?? taskBuiltin;
  const execute: ToolBody['execute'] = async (args, context) => {
    if (taskBuiltin) {
      if (!context.taskStore)
        throw new Error(
          'Scheduled tasks are not available in this session (the application gave the agent no task store).',
        );
      return { content: await taskBuiltin.execute(args, context.taskStore) };
    }
    if (!memoryBuiltin)
      throw new Error(
        `builtin:${target} is not a builtin tool (builtin tools: ${[...Object.keys(MEMORY_BUILTINS), ...Object.keys(TASK_BUILTINS)].sort().join(', ')}).`,
      );
    if (!context.memoryStore)
      throw new Error(
        'Long-term memory is not available in this session (the application gave the agent no memory store).',
      );
    return { content: await memoryBuiltin.execute(args, context.memoryStore) };
  };
  return declareTool(
    {
      name: tool.name,
      description: tool.description,
      skill: skill.name,
      kind: 'builtin',
      parameters: structuredClone(builtin?.parameters ?? { type: 'object', properties: {} }),
      approval: builtinApproval(target, tool),
      execute,
    },
    { maxOutputChars, describeError: describeBuiltinError },
  );
}
