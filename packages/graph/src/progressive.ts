import type { Skill } from '@birdie/skill-parser';
import { LOAD_SKILL, READ_REFERENCE } from './builtin-names.js';
import { skillBodyVisible } from './compaction-view.js';
import { readableReferenceFiles, readReferenceFile } from './reference-file.js';
import { skillBlock } from './system-prompt.js';
import { type DeclaredTool, declareTool, type ToolBody, type ToolRunContext } from './tool.js';

const never = () => null;

/** What a builtin's failure reads like to the model: its message, with the code of a typed failure (`max-turns`). */
export const describeBuiltinError = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && /^[a-z][a-z0-9-]*$/.test(code)
    ? { code, text: `Error (${code}): ${message}` }
    : { code: 'error', text: `Error: ${message}` };
};

/** A builtin tool: bounds its own output and never asks for approval. */
export function builtinTool(
  name: string,
  description: string,
  parameters: Record<string, unknown>,
  execute: ToolBody['execute'],
): DeclaredTool {
  return declareTool(
    { name, description, kind: 'builtin', parameters, approval: never, ownLimit: true, execute },
    { maxOutputChars: Number.POSITIVE_INFINITY, describeError: describeBuiltinError },
  );
}

export { LOAD_SKILL, READ_REFERENCE };

/** True when an earlier `load_skill` result for this skill is still sent whole (not summarised, not a breadcrumb). */
function bodyStillVisible(name: string, context: ToolRunContext): boolean {
  if (!context.loadedSkills?.includes(name) || !context.messages) return false;
  return skillBodyVisible(context.messages, context.compactions ?? [], context.contextMessages ?? 0, name);
}

/**
 * `load_skill(name)`: the body of an allowed knowledge skill, once; the name is an enum of exactly those skills.
 * For a progressive agent (`unlocks`), tool skills are loadable too: loading one makes its tools available from the
 * next model call on, and the result names them.
 */
export function createLoadSkillTool(skills: readonly Skill[], unlocks = false): DeclaredTool {
  const byName = new Map(skills.map((s) => [s.name, s]));
  const schema = {
    type: 'object',
    properties: {
      name: {
        type: 'string',
        enum: skills.map((s) => s.name),
        description: 'Exact name of the skill to read',
      },
    },
    required: ['name'],
    additionalProperties: false,
  };
  const description = unlocks
    ? 'Load a skill listed in the system prompt: returns its instructions and makes its tools available from your next step. Call it before a task the skill covers; load each skill once.'
    : 'Read the full instructions of a knowledge skill listed in the system prompt. Call it before a task the skill covers; the text stays in the conversation, so load each skill once.';
  const execute: ToolBody['execute'] = async (args, context) => {
    const name = String(args.name);
    const skill = byName.get(name);
    if (!skill) throw new Error(`Unknown or disabled skill "${name}".`);
    if (bodyStillVisible(name, context)) {
      return {
        content: `Skill "${name}" is already loaded above in this conversation; its instructions have not changed.`,
      };
    }
    // Listed now, not when the skill was loaded: a file since gone or leading out of the folder is not offered.
    const files = await readableReferenceFiles(skill);
    const resources =
      files.length > 0
        ? `\n\nReference files (read one with ${READ_REFERENCE}({"skill": "${name}", "file": "<path>"})):\n${files.map((r) => `- ${r}`).join('\n')}`
        : '';
    const hasBody = skill.body !== null && skill.body.trim() !== '';
    const text = hasBody
      ? skillBlock(skill)
      : `<skill name="${name}">\n${skill.description.trim()}\n</skill>`;
    const tools =
      unlocks && (skill.tools.length > 0 || skill.mcpServer)
        ? `\n\nTools available from your next step: ${skill.tools.map((t) => t.name).join(', ') || `the tools of its MCP server`}.`
        : '';
    return { content: `${text}${tools}${resources}`, loaded: [name] };
  };
  return builtinTool(LOAD_SKILL, description, schema, execute);
}

/**
 * `read_reference(skill, file)`: one of the files `load_skill` listed. The file must be in the skill's resource list
 * and resolve (symlinks followed) inside the skill folder; the text is capped.
 */
export function createReadReferenceTool(skills: readonly Skill[], maxChars: number): DeclaredTool {
  const byName = new Map(skills.map((s) => [s.name, s]));
  const schema = {
    type: 'object',
    properties: {
      skill: { type: 'string', enum: skills.map((s) => s.name), description: 'Skill that owns the file' },
      file: {
        type: 'string',
        description: 'Path of the file as listed by load_skill, e.g. "reference/guide.md"',
      },
    },
    required: ['skill', 'file'],
    additionalProperties: false,
  };
  const description = 'Read one reference file of a knowledge skill (the files load_skill lists).';
  const execute: ToolBody['execute'] = async (args) => {
    const skill = byName.get(String(args.skill));
    if (!skill) throw new Error(`Unknown or disabled skill "${String(args.skill)}".`);
    const { text, more } = await readReferenceFile(skill, String(args.file), maxChars);
    return { content: more > 0 ? `${text}\n[truncated: ${more} more bytes]` : text };
  };
  return builtinTool(READ_REFERENCE, description, schema, execute);
}
