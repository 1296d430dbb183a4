import type { Skill } from '@birdie/skill-parser';
import { memoryFilesTier } from './memory-files.js';
import type { MemoryFile, MemoryItem } from './types.js';

export interface SystemPromptInput {
  instructions?: string;
  /** The agent's own prompt (its file's body), right after the instructions and before every other tier. */
  agentBody?: string;
  /** Project memory files (`AGENTS.md`), general to specific; their own tier after the agent's body. */
  memoryFiles?: readonly MemoryFile[];
  /** Character budget of the memory files tier. Default 16000. */
  memoryFilesBudgetChars?: number;
  /** A progressive agent: loading a skill also unlocks its tools, and the catalog says so. */
  progressive?: boolean;
  /** Allowed skills (any kind), for the Tier 1 catalog. */
  allowed: readonly Skill[];
  /** Tier 2b: knowledge skills whose triggers match the latest human message. */
  triggered: readonly Skill[];
  memory?: readonly MemoryItem[];
  catalogBudgetChars: number;
  /** Whether `load_skill` is offered, so the catalog can point at it. */
  canLoadSkills: boolean;
}

export const DEFAULT_INSTRUCTIONS =
  'You are birdie, a helpful assistant. Your capabilities come from skills: use the tools you are given, and read a skill before relying on it.';

const byName = (a: Skill, b: Skill) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Wraps a skill body the way `load_skill` returns it, so the model sees one format for injected and loaded prose. */
export function skillBlock(skill: Skill): string {
  return `<skill name="${skill.name}">\n${(skill.body ?? '').trim()}\n</skill>`;
}

function catalogLine(skill: Skill): string {
  const description = skill.description.replace(/\s+/g, ' ').trim();
  const triggers = skill.triggers.length > 0 ? ` (triggers: ${skill.triggers.join(', ')})` : '';
  return `- ${skill.name} [${skill.kind}]: ${description}${triggers}`;
}

export const DEFAULT_MEMORY_FILES_BUDGET = 16_000;

function catalog(skills: Skill[], budget: number, canLoad: boolean, progressive: boolean): string {
  const lines: string[] = [];
  let used = 0;
  let listed = 0;
  for (const skill of skills) {
    const line = catalogLine(skill);
    if (used + line.length + 1 > budget) break;
    lines.push(line);
    used += line.length + 1;
    listed += 1;
  }
  const missing = skills.length - listed;
  if (missing > 0) lines.push(`(${missing} more skill${missing === 1 ? '' : 's'} not listed)`);
  const hint = !canLoad
    ? ''
    : progressive
      ? '\nSkills are not loaded until needed: call load_skill with a name to read one; its tools become available from your next step.'
      : '\nKnowledge skills are not in this prompt until needed: call load_skill with a name to read one.';
  return `# Skills\n${lines.join('\n')}${hint}`;
}

function memoryLine(item: MemoryItem): string {
  return typeof item === 'string' ? `- ${item}` : `- [${item.id}] ${item.content}`;
}

/**
 * Instructions, the agent's body, project memory files, then Tier 1 catalog, Tier 2a `always_inject` bodies, Tier 2b
 * triggered bodies, Tier 3 memory. A pure function of its input with a fixed order (names sorted), so equal inputs
 * give byte-identical prompts and the provider's prompt cache keeps hitting.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const allowed = [...input.allowed].sort(byName);
  const parts = [(input.instructions ?? DEFAULT_INSTRUCTIONS).trim()];
  const body = input.agentBody?.trim();
  if (body) parts.push(body);
  if (input.memoryFiles && input.memoryFiles.length > 0) {
    const tier = memoryFilesTier(
      input.memoryFiles,
      input.memoryFilesBudgetChars ?? DEFAULT_MEMORY_FILES_BUDGET,
    );
    if (tier) parts.push(tier);
  }
  if (allowed.length > 0)
    parts.push(catalog(allowed, input.catalogBudgetChars, input.canLoadSkills, input.progressive === true));

  const always = allowed.filter((s) => s.alwaysInject && s.body !== null && s.body.trim() !== '');
  if (always.length > 0) parts.push(`# Standing instructions\n${always.map(skillBlock).join('\n\n')}`);

  const alwaysNames = new Set(always.map((s) => s.name));
  const triggered = [...input.triggered]
    .filter((s) => !alwaysNames.has(s.name) && s.body !== null && s.body.trim() !== '')
    .sort(byName);
  if (triggered.length > 0)
    parts.push(`# Relevant skills for this message\n${triggered.map(skillBlock).join('\n\n')}`);

  if (input.memory && input.memory.length > 0) {
    parts.push(`# What you remember about the user\n${input.memory.map(memoryLine).join('\n')}`);
  }
  return parts.join('\n\n');
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function sameFiles(a: readonly MemoryFile[] | undefined, b: readonly MemoryFile[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  return a.every((f, i) => f.path === b[i]?.path && f.text === b[i]?.text);
}

/**
 * `buildSystemPrompt` remembering its last result: a steady session (same snapshot, same allowed skills, same
 * memory) reuses the string instead of sorting and joining the catalog on every model call.
 */
export function memoizedSystemPrompt(): (input: SystemPromptInput) => string {
  let last: { input: SystemPromptInput; memory: string; text: string } | undefined;
  return (input) => {
    const memory = JSON.stringify(input.memory ?? []);
    if (
      last &&
      last.memory === memory &&
      last.input.instructions === input.instructions &&
      last.input.agentBody === input.agentBody &&
      last.input.progressive === input.progressive &&
      last.input.memoryFilesBudgetChars === input.memoryFilesBudgetChars &&
      sameFiles(last.input.memoryFiles, input.memoryFiles) &&
      last.input.catalogBudgetChars === input.catalogBudgetChars &&
      last.input.canLoadSkills === input.canLoadSkills &&
      sameItems(last.input.allowed, input.allowed) &&
      sameItems(last.input.triggered, input.triggered)
    ) {
      return last.text;
    }
    const text = buildSystemPrompt(input);
    last = { input, memory, text };
    return text;
  };
}
