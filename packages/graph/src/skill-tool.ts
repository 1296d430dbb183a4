import { type Entrypoint, EntrypointError, resolveEntrypoint } from '@birdie/entrypoints';
import type { Skill, SkillTool } from '@birdie/skill-parser';
import { DynamicStructuredTool } from '@langchain/core/tools';
import { argsPreparer } from './json-args.js';
import { defaultApproval, type ExecContext, type RuntimeTool } from './runtime-tool.js';

export interface SkillToolOptions {
  defaultTimeoutMs: number;
  /** Byte cap handed to the entrypoint; the agent cuts to characters afterwards. */
  maxOutputBytes: number;
}

/** What the model reads when an entrypoint fails: the stable code, the message, and any output captured. */
export function describeEntrypointError(error: unknown): string {
  if (error instanceof EntrypointError) {
    const output = error.output ? `\n${error.output}` : '';
    return `Error (${error.code}): ${error.message}${output}`;
  }
  return `Error: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * A skill tool as a LangChain tool whose schema is the skill's own JSON Schema (no zod round trip), run through
 * `@birdie/entrypoints` with the tool's timeout and retries, the run's abort signal, the session's cwd and the
 * turn's tool environment (which names the session, so per-session tools such as `todo` find their data).
 */
export function createSkillTool(skill: Skill, tool: SkillTool, options: SkillToolOptions): RuntimeTool {
  let entrypoint: Entrypoint | undefined;
  let resolveError: unknown;
  try {
    entrypoint = resolveEntrypoint(tool.entrypoint, { skillDir: skill.dir, schema: tool.schema });
  } catch (error) {
    resolveError = error;
  }
  const prepare = argsPreparer(tool.schema);
  const timeoutMs = tool.timeout !== undefined ? tool.timeout * 1000 : options.defaultTimeoutMs;

  const execute = async (args: Record<string, unknown>, context: ExecContext) => {
    if (!entrypoint) throw resolveError;
    const result = await entrypoint.run(args, {
      timeoutMs,
      maxOutputBytes: options.maxOutputBytes,
      cwd: context.cwd,
      ...(context.env ? { env: context.env } : {}),
      ...(context.signal ? { signal: context.signal } : {}),
      ...(tool.retries !== undefined ? { retries: tool.retries } : {}),
    });
    return { content: result.output };
  };

  const lc = new DynamicStructuredTool({
    name: tool.name,
    description: tool.description,
    schema: structuredClone(tool.schema) as never,
    func: async (input: Record<string, unknown>, _runManager, config) => {
      const prepared = prepare(input);
      if (!prepared.ok) return prepared.error;
      const outcome = await execute(prepared.args, {
        cwd: process.cwd(),
        threadId: '',
        messages: [],
        loadedSkills: [],
        contextMessages: 0,
        ...(config?.signal ? { signal: config.signal } : {}),
      });
      return outcome.content;
    },
  });

  return {
    name: tool.name,
    description: tool.description,
    skill: skill.name,
    kind: 'skill',
    lc,
    approvalReason: defaultApproval(entrypoint?.raw ?? false, tool.approval),
    prepare,
    execute,
  };
}
