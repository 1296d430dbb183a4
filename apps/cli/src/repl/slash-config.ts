import { reloadSkillSettings } from '@birdie/runtime/session-choices';
import type { SettingKey } from '@birdie/runtime/settings';
import type { Values } from '../argv.js';
import { out, type ReplState } from './state.js';

/** The REPL's own `--config FILE`, if it was started with one: `/info` and `/config` read and write that file. */
function startedWith(state: ReplState): Values {
  const file = state.rt.values.config;
  return typeof file === 'string' ? { config: file } : {};
}

/** The settings that are not at their default, each with the file it came from. */
export async function settingsLine(state: ReplState): Promise<string> {
  const { settingRows } = await import('@birdie/runtime/settings-file');
  const rows = (await settingRows(state.io, startedWith(state))).filter((r) => r.source !== 'default');
  if (rows.length === 0) return 'all defaults (/config)';
  return rows
    .map((r) => `${r.key}=${Array.isArray(r.value) ? r.value.join(',') : String(r.value)} ← ${r.source}`)
    .join(', ');
}

/** What a saved setting changes in this REPL: the skill lists apply to `/new`; the rest waits for the next start. */
const AFTER_SAVE: Partial<Record<SettingKey, string>> = {
  'skills.enable':
    'saved: new sessions start with it, /new included (/skill enable|disable changes this one)',
  'skills.disable':
    'saved: new sessions start with it, /new included (/skill enable|disable changes this one)',
  approval: 'saved: the next start uses it (/approval changes it now)',
  tool_output: 'saved: the next start uses it (/tool output changes it now)',
  model: 'saved: the next start uses it (/model changes it now)',
};

/** `/config [list|get|set|unset …]`: the same as `birdie config`, on the file the REPL was started with. */
export async function config(state: ReplState, rest: string[]): Promise<undefined> {
  const { configCommand } = await import('../commands/config.js');
  const values = startedWith(state);
  await configCommand({
    io: state.io,
    values,
    positionals: rest,
    skills: () => state.rt.registry.current(),
  });
  if (rest[0] !== 'set' && rest[0] !== 'unset') return undefined;
  const key = rest[1] as SettingKey;
  // `/new` makes sessions from the runtime's settings: it takes the lists just saved.
  if (key === 'skills.enable' || key === 'skills.disable')
    await reloadSkillSettings(state.rt, state.io, values);
  return out(state, state.style('dim', AFTER_SAVE[key] ?? 'saved: the next start uses it'));
}
