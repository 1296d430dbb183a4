import { type EntrypointProblem, inspectEntrypoint } from '@birdie/entrypoints';
import type { Skill, SkillTool } from '@birdie/skill-parser';
import type { VFileMessage } from 'vfile-message';
import { RULES, registryMessage } from './diagnostics.js';
import type { PlacedSkill } from './layering.js';

const RULE_OF: Partial<Record<EntrypointProblem['code'], (typeof RULES)[keyof typeof RULES]>> = {
  'unknown-placeholder': RULES.unknownPlaceholder,
  'schema-mismatch': RULES.schemaMismatch,
};

/** Where a tool's entrypoint starts in its file, when the parser recorded it (else the tool's `###` line). */
function entrypointPlace(tool: SkillTool, problem: { offset?: number }): { line: number; column?: number } {
  const start = tool.entrypointPosition;
  if (!start) return { line: tool.line };
  // An entrypoint is one line in the file: the offset moves along it.
  return { line: start.line, column: start.column + (problem.offset ?? 0) };
}

/**
 * Checks every tool's entrypoint when the skills load, as `@birdie/entrypoints` would refuse it when run: an unsafe
 * `bash:` template (a value that could reach code), credentials in an `http:` URL, an unknown scheme, a placeholder
 * that is not a property of the tool's schema. Such a tool is left out of its skill with an error at the exact place;
 * the skill keeps its other tools. A `bash:` command that can run a value as code (`perl -e`, `find -exec sh -c`, …)
 * is a warning: the tool loads, and asks for approval unless it declares `approval: never`. Nothing runs: the check
 * only reads the template.
 */
export function checkEntrypoints(placed: readonly PlacedSkill[]): {
  placed: PlacedSkill[];
  messages: VFileMessage[];
} {
  const messages: VFileMessage[] = [];
  const result = placed.map((entry) => {
    const { skill } = entry;
    if (skill.tools.length === 0) return entry;
    const { kept, messages: found } = checkSkillTools(skill);
    messages.push(...found);
    return kept.length === skill.tools.length ? entry : { ...entry, skill: { ...skill, tools: kept } };
  });
  return { placed: result, messages };
}

/** One skill's tools checked: the ones that pass, and an error at the exact place for each problem of the others. */
export function checkSkillTools(skill: Skill): { kept: SkillTool[]; messages: VFileMessage[] } {
  const messages: VFileMessage[] = [];
  const kept = skill.tools.filter((tool) => {
    // The tool itself carries its entrypoint settings (proto:, sandbox:, memory:, …): checkEntrypoint reads those keys.
    const { problems, warnings } = inspectEntrypoint(tool.entrypoint, {
      skillDir: skill.dir,
      schema: tool.schema,
      settings: tool,
    });
    for (const problem of problems) {
      messages.push(
        registryMessage(`Tool \`${tool.name}\` is refused: ${problem.message}`, {
          file: skill.file,
          ...entrypointPlace(tool, problem),
          ruleId: RULE_OF[problem.code] ?? RULES.invalidEntrypoint,
          severity: 'error',
        }),
      );
    }
    if (problems.length > 0) return false;
    for (const warning of warnings) {
      const approval =
        tool.approval === 'never'
          ? ' (the tool declares `approval: never`: its calls run without asking)'
          : '';
      messages.push(
        registryMessage(`Tool \`${tool.name}\` runs a value as code: ${warning.message}${approval}`, {
          file: skill.file,
          ...entrypointPlace(tool, warning),
          ruleId: RULES.codeTakingCommand,
          severity: 'warning',
        }),
      );
    }
    return true;
  });
  return { kept, messages };
}
