import type { RegistrySnapshot } from '@birdie/registry';
import { SETTING_KEYS } from '@birdie/runtime/settings';
import {
  allowRuleWarnings,
  changeListSetting,
  checkListSetting,
  checkSettingKey,
  type SettingRow,
  settingsReport,
  unknownSkillWarnings,
  unsetUnknownSetting,
  writeSetting,
} from '@birdie/runtime/settings-file';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_USAGE, type Io, UsageError, write } from '../io.js';
import { printList } from '../render/list.js';

/** A setting's value, marked when the file's value cannot be used. */
function shownRow(row: SettingRow): string {
  return row.invalid === undefined ? shown(row.value) : `${shown(row.value)} (invalid: ${row.invalid})`;
}

/** The problems the config files still have, on stderr: exit 2, as any command meeting them ends. */
function reported(io: Io, problems: readonly string[]): number {
  for (const problem of problems) write(io.stderr, `birdie: ${problem}`);
  return problems.length ? EXIT_USAGE : EXIT_OK;
}

function shown(value: unknown): string {
  if (value === undefined) return '(not set)';
  if (Array.isArray(value)) return value.length ? value.join(', ') : '(none)';
  return String(value);
}

/** The subcommands that name a setting, and their arguments (a missing name would read as the unknown setting ""). */
const NEEDS_KEY: Record<string, string> = {
  get: 'KEY',
  set: 'KEY VALUE',
  unset: 'KEY',
  add: 'KEY VALUE',
  remove: 'KEY VALUE',
};

/**
 * `birdie config list|get|set|unset|add|remove`: the user's defaults (settings section of the config file).
 * `skills`: the loaded skills to check `skills.enable|disable` names against (the REPL's own); by default the command
 * loads them.
 */
export async function configCommand({
  io,
  values,
  positionals,
  skills,
}: CommandContext & { skills?: () => RegistrySnapshot }): Promise<number> {
  const [sub = 'list', key, raw] = positionals;
  if (key === undefined && Object.hasOwn(NEEDS_KEY, sub))
    throw new UsageError(
      `missing setting. Usage: birdie config ${sub} ${NEEDS_KEY[sub]} (settings: birdie config list)`,
    );
  if (sub === 'list' || sub === 'get') {
    // Shown even when the file holds a value a start refuses (marked, and said on stderr: exit 2), so that it can be
    // repaired with set/unset.
    const name = sub === 'get' ? checkSettingKey(key) : undefined;
    const { rows, problems } = await settingsReport(io, values);
    if (sub === 'list')
      printList(io, values, rows, {
        header: ['SETTING', 'VALUE', 'SOURCE'],
        plainHeader: true,
        row: (r) => [r.key, shownRow(r), r.source],
      });
    else {
      const row = rows.find((r) => r.key === name)!;
      write(io.stdout, values.json === true ? JSON.stringify(row.value ?? null) : shownRow(row));
    }
    return reported(io, problems);
  }
  if (sub === 'unset' && key !== undefined && !(SETTING_KEYS as readonly string[]).includes(key)) {
    // A name the file has but no setting has: taken out, which repairs a file a start refuses.
    const removed = await unsetUnknownSetting(io, values, key);
    if (removed === undefined) checkSettingKey(key);
    write(
      io.stdout,
      values.json === true
        ? JSON.stringify({ action: 'unset', key, value: null, file: removed!.file })
        : `${key} unset (in ${removed!.file})`,
    );
    reported(io, removed!.problems);
    return EXIT_OK;
  }
  if (sub === 'set' || sub === 'unset') {
    const name = checkSettingKey(key);
    if (sub === 'set' && raw === undefined)
      throw new UsageError(`missing value. Usage: birdie config set ${name} VALUE`);
    const { file, value, problems } = await writeSetting(io, values, name, sub === 'set' ? raw : undefined);
    write(
      io.stdout,
      values.json === true
        ? JSON.stringify({ action: sub, key: name, value: value ?? null, file })
        : sub === 'set'
          ? `${name} = ${shown(value)} (in ${file})`
          : `${name} unset (in ${file})`,
    );
    if (sub === 'set' && name === 'model') {
      const { modelSettingWarnings } = await import('@birdie/runtime/model-setting-warnings');
      for (const warning of await modelSettingWarnings(io, values, value as string, file))
        write(io.stderr, `birdie: ${warning}`);
    }
    if (sub === 'set' && (name === 'skills.enable' || name === 'skills.disable'))
      for (const warning of await unknownSkillWarnings(io, values, name, value as string[], skills?.()))
        write(io.stderr, `birdie: ${warning}`);
    // The change is made; what the file still has wrong (not of this change) is said, with the way to fix it.
    reported(io, problems);
    return EXIT_OK;
  }
  if (sub === 'add' || sub === 'remove') return addOrRemove(io, values, sub, key, raw, skills);
  throw new UsageError(`unknown command "config ${sub}". Try: list, get, set, unset, add, remove.`);
}

/** `birdie config add|remove KEY VALUE`: one entry added to (or taken from) a list setting, VALUE taken whole. */
async function addOrRemove(
  io: Io,
  values: CommandContext['values'],
  sub: 'add' | 'remove',
  key: string | undefined,
  raw: string | undefined,
  skills?: () => RegistrySnapshot,
): Promise<number> {
  const name = checkSettingKey(key);
  checkListSetting(name);
  if (raw === undefined) throw new UsageError(`missing value. Usage: birdie config ${sub} ${name} VALUE`);
  const { file, changed, value, problems } = await changeListSetting(io, values, sub, name, raw);
  write(
    io.stdout,
    values.json === true
      ? JSON.stringify({ action: sub, key: name, entry: raw, changed, value, file })
      : sub === 'add'
        ? `${name}: ${changed ? 'added' : 'already has'} ${raw} (in ${file})`
        : `${name}: removed ${raw} (in ${file})`,
  );
  // Written all the same: the rule is valid, only useless for those tools (a warning, as `agents check` gives).
  if (sub === 'add')
    for (const warning of await allowRuleWarnings(io, values, name, raw, skills?.()))
      write(io.stderr, `birdie: ${warning}`);
  reported(io, problems);
  return EXIT_OK;
}
