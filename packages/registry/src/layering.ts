import type { Skill } from '@birdie/skill-parser';
import type { VFileMessage } from 'vfile-message';
import { compareText, RULES, registryMessage } from './diagnostics.js';
import type { SkillDirectory } from './types.js';

/** What one folder yielded. */
export interface ScannedDirectory {
  directory: SkillDirectory;
  skills: Skill[];
}

export interface PlacedSkill {
  skill: Skill;
  directory: SkillDirectory;
  /** Load position (folder precedence, then file path): "later" in every rule means a higher number. */
  order: number;
}

/**
 * One skill per name, names compared case-insensitively. Across folders the later folder wins (an info message,
 * or a warning when the names differ only by case); inside one folder the first file by path wins and the
 * others are refused with a warning.
 */
export function resolveLayers(scanned: readonly ScannedDirectory[]): {
  placed: PlacedSkill[];
  messages: VFileMessage[];
} {
  const byName = new Map<string, PlacedSkill>();
  const messages: VFileMessage[] = [];
  let order = 0;
  for (const { directory, skills } of scanned) {
    const sorted = [...skills].sort((a, b) => compareText(a.file, b.file));
    for (const skill of sorted) {
      const key = skill.name.toLowerCase();
      const previous = byName.get(key);
      const current: PlacedSkill = { skill, directory, order: order++ };
      if (!previous) {
        byName.set(key, current);
        continue;
      }
      const old = previous.skill;
      const caseOnly = old.name !== skill.name;
      if (previous.directory === directory) {
        messages.push(
          registryMessage(
            caseOnly
              ? `Skill \`${skill.name}\` is ignored: its name differs only by case from \`${old.name}\` in ${old.file}`
              : `Skill \`${skill.name}\` is ignored: ${old.file} in the same folder already defines it`,
            {
              file: skill.file,
              line: 1,
              ruleId: caseOnly ? RULES.skillNameCaseCollision : RULES.duplicateSkillName,
              severity: 'warning',
            },
          ),
        );
        continue;
      }
      messages.push(
        registryMessage(
          caseOnly
            ? `Skill \`${skill.name}\` (${directory.layer}) replaces \`${old.name}\` from ${old.file} (${previous.directory.layer}): the names differ only by case`
            : `Skill \`${skill.name}\` (${directory.layer}, ${skill.file}) replaces the one from ${old.file} (${previous.directory.layer}); grants given to that one do not carry over`,
          {
            file: skill.file,
            line: 1,
            ruleId: caseOnly ? RULES.skillNameCaseCollision : RULES.skillOverridden,
            severity: 'warning',
          },
        ),
      );
      byName.set(key, current);
    }
  }
  return { placed: [...byName.values()].sort((a, b) => a.order - b.order), messages };
}

/**
 * Each tool name belongs to the first skill (in load order) that declares it. A later skill's clashing tool is
 * taken out of that skill's `tools`, so it appears in no index; the skill keeps its other tools.
 */
export function claimTools(placed: readonly PlacedSkill[]): {
  placed: PlacedSkill[];
  messages: VFileMessage[];
} {
  const owners = new Map<string, Skill>();
  const messages: VFileMessage[] = [];
  const result = placed.map((entry) => {
    const { skill } = entry;
    const kept = skill.tools.filter((tool) => {
      const owner = owners.get(tool.name);
      if (!owner) return true;
      messages.push(
        registryMessage(
          `Tool \`${tool.name}\` of skill \`${skill.name}\` is refused: skill \`${owner.name}\` (${owner.file}) already declares it`,
          { file: skill.file, line: tool.line, ruleId: RULES.toolNameClash, severity: 'warning' },
        ),
      );
      return false;
    });
    for (const tool of kept) owners.set(tool.name, skill);
    return kept.length === skill.tools.length ? entry : { ...entry, skill: { ...skill, tools: kept } };
  });
  return { placed: result, messages };
}
