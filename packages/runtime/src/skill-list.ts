import type { LoadedRegistry } from '@birdie/registry';
import { explicitConfigPath } from './config.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import type { Settings } from './settings.js';
import { readSettings } from './settings-files.js';

/** A loaded skill as `birdie skills list` lists it (one JSON object per skill with `--json`). */
export interface SkillListRow {
  name: string;
  kind: string;
  tools: string[];
  enabledByDefault: boolean;
  /** Whether new sessions start with it on, where `setBy` (a setting) decides; elsewhere `enabledByDefault` does. */
  newSessions?: boolean;
  setBy?: 'skills.enable' | 'skills.disable';
  layer: string;
  dir: string;
}

/**
 * Every loaded skill with its tools, where it came from, and whether new sessions start with it on: the skill's own
 * default, then the settings (`skills.enable`, and `skills.disable`, which wins), as a session is made. `settings`:
 * those already read (default: read from the config files, their defaults when the files cannot be used).
 */
export async function skillListRows(
  io: RuntimeIo,
  values: Flags,
  registry: LoadedRegistry,
  settings?: Settings,
): Promise<SkillListRow[]> {
  const snapshot = registry.current();
  const { skills: chosen } = settings ?? (await readSettings(io, explicitConfigPath(io, values)));
  const named = (names: readonly string[]) => new Set(names.map((n) => n.toLowerCase()));
  const [enabled, disabled] = [named(chosen.enable), named(chosen.disable)];
  return snapshot.skills.map((skill) => {
    const layer = snapshot.layerOf(skill.name);
    const enabledByDefault = skill.enabledByDefault || registry.defaults.includes(skill.name);
    const key = skill.name.toLowerCase();
    const setting = disabled.has(key) ? 'skills.disable' : enabled.has(key) ? 'skills.enable' : undefined;
    return {
      name: skill.name,
      kind: skill.kind,
      tools: skill.tools.map((t) => t.name),
      enabledByDefault,
      // Only where the settings decide: elsewhere new sessions get `enabledByDefault`.
      ...(setting ? { newSessions: setting === 'skills.enable', setBy: setting } : {}),
      layer: layer?.layer ?? '',
      dir: skill.dir,
    };
  });
}
