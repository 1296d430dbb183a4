import { basename, dirname, extname } from 'node:path';
import type { AgentDefinition, Skill } from '@birdie/skill-parser';
import type { VFileMessage } from 'vfile-message';
import { compareText, type RegistryRuleId, RULES, registryMessage } from './diagnostics.js';
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
  /** The folder's position in precedence order (higher wins). */
  folder: number;
}

/** What one agents folder yielded. */
export interface ScannedAgentDirectory {
  directory: SkillDirectory;
  agents: AgentDefinition[];
}

export interface PlacedAgent {
  agent: AgentDefinition;
  directory: SkillDirectory;
  order: number;
}

interface Named {
  name: string;
  file: string;
}

/** How layering speaks of one kind of file, and the rule ids it reports with. */
interface Wording {
  noun: 'Skill' | 'Agent';
  /** Added to the replacement warning. */
  replaced: string;
  overridden: RegistryRuleId;
  duplicate: RegistryRuleId;
  caseCollision: RegistryRuleId;
  /** The name its place on disk gives a file (a skill's folder, an agent file's name without `.md`). */
  placeName(file: string): string;
}

const SKILLS: Wording = {
  noun: 'Skill',
  replaced: '; grants given to that one do not carry over',
  overridden: RULES.skillOverridden,
  duplicate: RULES.duplicateSkillName,
  caseCollision: RULES.skillNameCaseCollision,
  placeName: (file) => basename(dirname(file)),
};

const AGENTS: Wording = {
  noun: 'Agent',
  replaced: '',
  overridden: RULES.agentOverridden,
  duplicate: RULES.duplicateAgentName,
  caseCollision: RULES.agentNameCaseCollision,
  placeName: (file) => basename(file, extname(file)),
};

/**
 * One item per name, names compared case-insensitively. Across folders the later folder wins (a warning naming both
 * files); inside one folder the file whose place is named after it wins (`notes/SKILL.md` over a copy left in
 * `notes-old/`, which sorts first), then the first by path, and the others are refused with a warning.
 */
function resolveNames<T extends Named>(
  scanned: ReadonlyArray<{ directory: SkillDirectory; items: readonly T[] }>,
  words: Wording,
): {
  placed: Array<{ item: T; directory: SkillDirectory; order: number; folder: number }>;
  messages: VFileMessage[];
} {
  type Placed = { item: T; directory: SkillDirectory; order: number; folder: number };
  const byName = new Map<string, Placed>();
  const messages: VFileMessage[] = [];
  const { noun } = words;
  let order = 0;
  for (const [folder, { directory, items }] of scanned.entries()) {
    const sorted = [...items].sort((a, b) => compareText(a.file, b.file));
    for (const item of sorted) {
      const key = item.name.toLowerCase();
      const previous = byName.get(key);
      const current: Placed = { item, directory, order: order++, folder };
      if (!previous) {
        byName.set(key, current);
        continue;
      }
      const old = previous.item;
      const caseOnly = old.name !== item.name;
      if (previous.directory === directory) {
        // The copy in a place named after it wins, wherever another copy sorts (`notes-old/` before `notes/`).
        const named = (it: T) => words.placeName(it.file) === it.name;
        const swap = named(item) && !named(old);
        const [kept, ignored] = swap ? [item, old] : [old, item];
        const why = swap
          ? `, and ${words.noun === 'Skill' ? 'its folder' : 'its file'} is named after it`
          : '';
        messages.push(
          registryMessage(
            caseOnly
              ? `${noun} \`${ignored.name}\` is ignored: its name differs only by case from \`${kept.name}\` in ${kept.file}${why}`
              : swap
                ? `${noun} \`${ignored.name}\` is ignored: ${kept.file} in the same folder defines it too${why}`
                : `${noun} \`${ignored.name}\` is ignored: ${kept.file} in the same folder already defines it`,
            {
              file: ignored.file,
              line: 1,
              ruleId: caseOnly ? words.caseCollision : words.duplicate,
              severity: 'warning',
            },
          ),
        );
        if (swap) byName.set(key, current);
        continue;
      }
      messages.push(
        registryMessage(
          caseOnly
            ? `${noun} \`${item.name}\` (${directory.layer}) replaces \`${old.name}\` from ${old.file} (${previous.directory.layer}): the names differ only by case`
            : `${noun} \`${item.name}\` (${directory.layer}, ${item.file}) replaces the one from ${old.file} (${previous.directory.layer})${words.replaced}`,
          {
            file: item.file,
            line: 1,
            ruleId: caseOnly ? words.caseCollision : words.overridden,
            severity: 'warning',
          },
        ),
      );
      byName.set(key, current);
    }
  }
  return { placed: [...byName.values()].sort((a, b) => a.order - b.order), messages };
}

/** Skills layered: see `resolveNames`. */
export function resolveLayers(scanned: readonly ScannedDirectory[]): {
  placed: PlacedSkill[];
  messages: VFileMessage[];
} {
  const { placed, messages } = resolveNames(
    scanned.map(({ directory, skills }) => ({ directory, items: skills })),
    SKILLS,
  );
  return {
    placed: placed.map(({ item, directory, order, folder }) => ({ skill: item, directory, order, folder })),
    messages,
  };
}

/** Agents layered like skills: a later folder's agent replaces an earlier one of the same name, with a warning. */
export function resolveAgentLayers(scanned: readonly ScannedAgentDirectory[]): {
  placed: PlacedAgent[];
  messages: VFileMessage[];
} {
  const { placed, messages } = resolveNames(
    scanned.map(({ directory, agents }) => ({ directory, items: agents })),
    AGENTS,
  );
  return {
    placed: placed.map(({ item, directory, order }) => ({ agent: item, directory, order })),
    messages,
  };
}

/** Whether a skill is on in a session that has granted nothing: `enabled_by_default`, or an application default. */
function onByDefault(skill: Skill, defaults: ReadonlySet<string>): boolean {
  return skill.enabledByDefault || defaults.has(skill.name.toLowerCase());
}

/**
 * Which of two skills declaring the same tool keeps it: one that is on by default over one that is off (a disabled
 * skill never takes a name from an enabled one), then the later folder (the layers' precedence: a user's folder over
 * the bundled one), then, inside one folder, the first file by path.
 */
function outranks(a: PlacedSkill, b: PlacedSkill, defaults: ReadonlySet<string>): boolean {
  const on = Number(onByDefault(a.skill, defaults)) - Number(onByDefault(b.skill, defaults));
  if (on !== 0) return on > 0;
  if (a.folder !== b.folder) return a.folder > b.folder;
  return a.order < b.order;
}

/**
 * Each tool name belongs to one skill (see `outranks`). The other skills' tools of that name are taken out of their
 * `tools`, so they appear in no index; those skills keep their other tools.
 */
export function claimTools(
  placed: readonly PlacedSkill[],
  defaults: readonly string[] = [],
  builtinTools: readonly string[] = [],
): {
  placed: PlacedSkill[];
  messages: VFileMessage[];
} {
  const on = new Set(defaults.map((name) => name.toLowerCase()));
  const builtins = new Set(builtinTools);
  // A `builtin:` entrypoint declares the application's own tool (the bundled memory skill's `remember`); any other
  // tool of a builtin's name would replace or hide the builtin, in one command and not another: the builtin keeps it.
  const takesBuiltinName = (tool: { name: string; entrypoint: string }) =>
    builtins.has(tool.name) && !tool.entrypoint.startsWith('builtin:');
  const owners = new Map<string, PlacedSkill>();
  for (const entry of placed)
    for (const tool of entry.skill.tools) {
      if (takesBuiltinName(tool)) continue;
      const owner = owners.get(tool.name);
      if (!owner || outranks(entry, owner, on)) owners.set(tool.name, entry);
    }
  const messages: VFileMessage[] = [];
  const result = placed.map((entry) => {
    const { skill } = entry;
    const kept = skill.tools.filter((tool) => {
      if (takesBuiltinName(tool)) {
        messages.push(
          registryMessage(
            `Tool \`${tool.name}\` of skill \`${skill.name}\` is refused: \`${tool.name}\` is a builtin tool, which keeps its name; rename this one`,
            { file: skill.file, line: tool.line, ruleId: RULES.toolNameClash, severity: 'warning' },
          ),
        );
        return false;
      }
      const owner = owners.get(tool.name)!;
      if (owner === entry) return true;
      messages.push(
        registryMessage(
          `Tool \`${tool.name}\` of skill \`${skill.name}\` is refused: skill \`${owner.skill.name}\` (${owner.skill.file}) declares it too and takes precedence`,
          { file: skill.file, line: tool.line, ruleId: RULES.toolNameClash, severity: 'warning' },
        ),
      );
      return false;
    });
    return kept.length === skill.tools.length ? entry : { ...entry, skill: { ...skill, tools: kept } };
  });
  return { placed: result, messages };
}
