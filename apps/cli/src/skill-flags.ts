import type { Session } from '@birdie/store';
import type { Values } from './argv.js';
import { UsageError } from './io.js';
import type { Runtime } from './runtime.js';

export interface SkillFlags {
  enable: string[];
  disable: string[];
}

function list(value: Values[string]): string[] {
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}

/**
 * `--enable SKILL` / `--disable SKILL` checked against the loaded skills, before any session is created or touched:
 * an unknown name is a usage error naming the closest skill. Names come back as the skills spell them.
 */
export function skillFlags(rt: Pick<Runtime, 'registry'>, values: Values): SkillFlags {
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

/** Applies the flags to the session's grants (the policy saves them), so they hold for this turn and every later one. */
export async function applySkillFlags(rt: Runtime, session: Session, flags: SkillFlags): Promise<void> {
  for (const name of flags.enable) rt.policy.enable(session.id, name);
  for (const name of flags.disable) rt.policy.disable(session.id, name);
  await rt.saveGrants();
}
