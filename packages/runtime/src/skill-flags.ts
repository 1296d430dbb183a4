import type { RegistrySnapshot } from '@birdie/registry';
import type { Session } from '@birdie/store';
import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import type { Runtime } from './runtime.js';

/** Skills to enable and to disable in a session: from `--enable`/`--disable`, the settings, or an API request. */
export interface SkillFlags {
  enable: string[];
  disable: string[];
}

function list(value: Flags[string]): string[] {
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}

/**
 * `--enable SKILL` / `--disable SKILL` checked against the loaded skills, before any session is created or touched:
 * an unknown name is a usage error naming the closest skill. Names come back as the skills spell them.
 */
export function skillFlags(rt: Pick<Runtime, 'registry'>, values: Flags): SkillFlags {
  const snapshot = rt.registry.current();
  const canonical = (flag: string) => (name: string) => {
    const skill = snapshot.getSkill(name);
    if (skill) return skill.name;
    const [near] = snapshot.suggest(name, 1);
    throw new UsageError(
      `--${flag}: no skill "${name}".${near ? ` Did you mean "${near}"?` : ''} Run \`birdie skills list\` to see them.`,
    );
  };
  const flags = {
    enable: list(values.enable).map(canonical('enable')),
    disable: list(values.disable).map(canonical('disable')),
  };
  const both = flags.enable.find((name) => flags.disable.includes(name));
  if (both) throw new UsageError(`skill "${both}" is given to both --enable and --disable`);
  return flags;
}

/**
 * The `skills.enable` / `skills.disable` settings checked against the loaded skills. They are the user's standing
 * defaults, so a name no loaded skill has (removed, misspelt, or in a project folder not trusted for what it declares
 * now) is left out with a warning naming the setting, its file and the skill; it never stops a start.
 */
export function settingSkills(rt: {
  registry: Runtime['registry'];
  config: Pick<Runtime['config'], 'settings' | 'sources'>;
}): {
  skills: SkillFlags;
  warnings: string[];
} {
  const snapshot = rt.registry.current();
  const warnings: string[] = [];
  const known = (key: 'enable' | 'disable') => (name: string) => {
    const skill = snapshot.getSkill(name);
    if (skill) return [skill.name];
    const setting = `setting skills.${key} (${rt.config.sources[`skills.${key}`]})`;
    warnings.push(unknownSkillWarning(snapshot, `skills.${key}`, name, setting)!);
    return [];
  };
  const { enable, disable } = rt.config.settings.skills;
  return {
    skills: { enable: enable.flatMap(known('enable')), disable: disable.flatMap(known('disable')) },
    warnings,
  };
}

/** The flags over the settings: a skill a flag names takes the flag's side, whatever the settings say. */
export function skillsOver(settings: SkillFlags, flags: SkillFlags): SkillFlags {
  const named = new Set([...flags.enable, ...flags.disable].map((name) => name.toLowerCase()));
  const kept = (names: string[]) => names.filter((name) => !named.has(name.toLowerCase()));
  return {
    enable: [...kept(settings.enable), ...flags.enable],
    disable: [...kept(settings.disable), ...flags.disable],
  };
}

/**
 * Applies the flags to the session's grants through the policy (which saves them, each enabled name bound to the
 * skill file that provides it now, as `/skill enable` does), so they hold for this turn and every later one.
 */
export async function applySkillFlags(rt: Runtime, session: Session, flags: SkillFlags): Promise<void> {
  for (const name of flags.enable) rt.policy.enable(session.id, name);
  for (const name of flags.disable) rt.policy.disable(session.id, name);
  await rt.saveGrants(session.id);
}

/**
 * Why a name in `skills.enable` / `skills.disable` (`setting` says which, and where) has no effect, or undefined
 * when a loaded skill has it: in a project folder not trusted, or no such skill (with the nearest name).
 */
export function unknownSkillWarning(
  snapshot: RegistrySnapshot,
  key: 'skills.enable' | 'skills.disable',
  name: string,
  setting: string,
): string | undefined {
  if (snapshot.getSkill(name)) return undefined;
  const done = key === 'skills.enable' ? 'enabled' : 'disabled';
  const folder = snapshot.untrusted.find((w) =>
    w.skills.some((s) => s.name.toLowerCase() === name.toLowerCase()),
  );
  if (folder)
    return `${setting}: skill "${name}" is in ${folder.path}, a project folder not trusted for what it declares now, so it is not ${done} in this session. Once you trust the folder (\`birdie trust\` there, or the REPL's question), new sessions get it.`;
  const [near] = snapshot.suggest(name, 1);
  return `${setting}: no skill "${name}", so it is not ${done}.${near ? ` Did you mean "${near}"?` : ' Run `birdie skills list` to see them.'}`;
}
