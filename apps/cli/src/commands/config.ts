import type { RegistrySnapshot } from '@birdie/registry';
import {
  changeListSetting,
  checkListSetting,
  checkSettingKey,
  settingRows,
  unknownSkillWarnings,
  writeSetting,
} from '@birdie/runtime/settings-file';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, type Io, UsageError, write } from '../io.js';
import { printList } from '../render/list.js';

function shown(value: unknown): string {
  if (value === undefined) return '(not set)';
  if (Array.isArray(value)) return value.length ? value.join(', ') : '(none)';
  return String(value);
}

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
  if (sub === 'list') {
    return printList(io, values, await settingRows(io, values), {
      header: ['SETTING', 'VALUE', 'SOURCE'],
      plainHeader: true,
      row: (r) => [r.key, shown(r.value), r.source],
    });
  }
  if (sub === 'get') {
    const name = checkSettingKey(key);
    const row = (await settingRows(io, values)).find((r) => r.key === name)!;
    write(io.stdout, values.json === true ? JSON.stringify(row.value ?? null) : shown(row.value));
    return EXIT_OK;
  }
  if (sub === 'set' || sub === 'unset') {
    const name = checkSettingKey(key);
    if (sub === 'set' && raw === undefined)
      throw new UsageError(`missing value. Usage: birdie config set ${name} VALUE`);
    const { file, value } = await writeSetting(io, values, name, sub === 'set' ? raw : undefined);
    write(io.stdout, sub === 'set' ? `${name} = ${shown(value)} (in ${file})` : `${name} unset (in ${file})`);
    if (sub === 'set' && (name === 'skills.enable' || name === 'skills.disable'))
      for (const warning of await unknownSkillWarnings(io, values, name, value as string[], skills?.()))
        write(io.stderr, `birdie: ${warning}`);
    return EXIT_OK;
  }
  if (sub === 'add' || sub === 'remove') return addOrRemove(io, values, sub, key, raw);
  throw new UsageError(`unknown command "config ${sub}". Try: list, get, set, unset, add, remove.`);
}

/** `birdie config add|remove KEY VALUE`: one entry added to (or taken from) a list setting, VALUE taken whole. */
async function addOrRemove(
  io: Io,
  values: CommandContext['values'],
  sub: 'add' | 'remove',
  key: string | undefined,
  raw: string | undefined,
): Promise<number> {
  const name = checkSettingKey(key);
  checkListSetting(name);
  if (raw === undefined) throw new UsageError(`missing value. Usage: birdie config ${sub} ${name} VALUE`);
  const { file, changed } = await changeListSetting(io, values, sub, name, raw);
  write(
    io.stdout,
    sub === 'add'
      ? `${name}: ${changed ? 'added' : 'already has'} ${raw} (in ${file})`
      : `${name}: removed ${raw} (in ${file})`,
  );
  return EXIT_OK;
}
