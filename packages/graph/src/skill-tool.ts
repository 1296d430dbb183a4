import { type Entrypoint, EntrypointError, resolveEntrypoint } from '@birdie/entrypoints';
import type { Skill, SkillTool } from '@birdie/skill-parser';
import { readChangePreview } from './change-preview.js';
import { captureBytes, type ToolLimits, timerMs } from './limits.js';
import { builtinTarget, createBuiltinSkillTool } from './memory-tools.js';
import { type DeclaredTool, declareTool, defaultApproval } from './tool.js';

/**
 * What the model reads when a tool fails: the stable code, the message, and any output captured under its own label
 * (a process's output holds its stderr too, which the message does not repeat). Output the message already ends with
 * on lines of its own (an `http:` error's start of the body) is not repeated under the label.
 */
export function describeToolError(error: unknown): { code: string; text: string } {
  if (error instanceof EntrypointError) {
    const captured = error.output?.trim();
    // Quoted means the message's last lines are the output (not a number that happens to be in it: `exited with 1`).
    const quoted = captured !== undefined && error.message.endsWith(`\n${captured}`);
    const output = captured && !quoted ? `\noutput:\n${error.output}` : '';
    return { code: error.code, text: `Error (${error.code}): ${error.message}${output}` };
  }
  return { code: 'error', text: `Error: ${error instanceof Error ? error.message : String(error)}` };
}

/** A preview is asked for while the user waits for the question: it has to be quick. */
const PREVIEW_TIMEOUT_MS = 10_000;
/** Room for the texts `readChangePreview` keeps (JSON escapes included); a larger output is cut and not JSON. */
const PREVIEW_OUTPUT_BYTES = 2 * 1024 * 1024;

export interface SkillToolOptions {
  /**
   * The tool runs in a session (an agent's turn, a call of a `birdie mcp` connection): a `builtin:` entrypoint is then
   * the agent's own implementation, which reaches the user's memory and tasks through the run context (`memoryStore`,
   * `taskStore`). Outside a session (`birdie tool`) it is the entrypoint, whose every call fails with `builtin-only`.
   */
  inSession?: boolean;
}

/** When a tool run through `entrypoint` asks (undefined: one that does not resolve, whose every call fails). */
export function entrypointApproval(entrypoint: Entrypoint | undefined, tool: SkillTool) {
  return defaultApproval(
    entrypoint?.raw ?? false,
    tool.approval,
    tool.preview !== undefined,
    entrypoint?.runsCode !== undefined,
  );
}

/**
 * A skill tool: the skill's own JSON Schema for the model, run through `@birdie/entrypoints` with the tool's
 * timeout (or the limits' default) and retries, the turn's abort signal, cwd and tool environment. An entrypoint
 * that does not resolve still yields a tool, whose every call fails with the resolve error.
 */
export function createSkillTool(
  skill: Skill,
  tool: SkillTool,
  limits: Pick<ToolLimits, 'timeoutMs' | 'maxOutputChars'>,
  options: SkillToolOptions = {},
): DeclaredTool {
  const target = options.inSession ? builtinTarget(tool) : undefined;
  if (target !== undefined) return createBuiltinSkillTool(skill, tool, target, limits.maxOutputChars);
  let entrypoint: Entrypoint | undefined;
  let resolveError: unknown;
  try {
    // The tool carries its entrypoint settings (sandbox:, proto:, memory:, …): the entrypoint reads those keys.
    entrypoint = resolveEntrypoint(tool.entrypoint, {
      skillDir: skill.dir,
      schema: tool.schema,
      settings: tool,
    });
  } catch (error) {
    resolveError = error;
  }
  // The preview is an entrypoint of its own (`preview:`), resolved the same way; it must not change anything.
  let preview: Entrypoint | undefined;
  let previewError: unknown;
  if (tool.preview !== undefined) {
    try {
      preview = resolveEntrypoint(tool.preview, { skillDir: skill.dir, schema: tool.schema, settings: tool });
    } catch (error) {
      previewError = error;
    }
  }
  const timeoutMs = tool.timeout !== undefined ? timerMs(tool.timeout) : limits.timeoutMs;
  const maxOutputBytes = captureBytes(limits);
  return declareTool(
    {
      name: tool.name,
      description: tool.description,
      skill: skill.name,
      kind: 'skill',
      parameters: structuredClone(tool.schema),
      approval: entrypointApproval(entrypoint, tool),
      raw: entrypoint?.raw ?? false,
      ...(tool.preview !== undefined
        ? {
            async preview(args, context) {
              if (!preview) throw previewError;
              const result = await preview.run(args, {
                timeoutMs: Math.min(timeoutMs, PREVIEW_TIMEOUT_MS),
                maxOutputBytes: PREVIEW_OUTPUT_BYTES,
                cwd: context.cwd,
                ...(context.env ? { env: context.env } : {}),
                ...(context.signal ? { signal: context.signal } : {}),
                ...(context.files ? { files: context.files } : {}),
              });
              return readChangePreview(result.output);
            },
          }
        : {}),
      async execute(args, context) {
        if (!entrypoint) throw resolveError;
        const result = await entrypoint.run(args, {
          timeoutMs,
          maxOutputBytes,
          cwd: context.cwd,
          ...(context.env ? { env: context.env } : {}),
          ...(context.signal ? { signal: context.signal } : {}),
          ...(context.files ? { files: context.files } : {}),
          ...(context.onOutput ? { onOutput: context.onOutput } : {}),
          ...(tool.retries !== undefined ? { retries: tool.retries } : {}),
        });
        return {
          content: result.output,
          ...(result.images ? { images: result.images } : {}),
          ...(result.truncated
            ? { cut: result.droppedBytes !== undefined ? { droppedBytes: result.droppedBytes } : {} }
            : {}),
        };
      },
    },
    { maxOutputChars: limits.maxOutputChars, describeError: describeToolError },
  );
}
