import { existsSync } from 'node:fs';
import type { RegistrySnapshot } from '@birdie/registry';
import { configFileProblem, explicitConfigPath } from '../config.js';
import { writePrivateFile } from '../folders.js';
import { EXIT_OK, type Io, UsageError, write } from '../io.js';
import { loadSettingsWithSources } from '../isolation.js';
import type { CommandContext } from '../main.js';
import { configFile } from '../paths.js';
import { table } from '../render/style.js';
import type { SettingKey } from '../settings.js';
import { SETTING_KEYS } from '../settings.js';
import { unknownSkillWarning } from '../skill-flags.js';
import { didYouMean } from '../suggest.js';

/** The file `set` and `unset` write: `--config FILE` when given, else `~/.birdie/config.json`. */
function targetFile(io: Io, values: CommandContext['values']): string {
  return explicitConfigPath(io, values) ?? configFile(io.env);
}

/** Every setting with its value and where it came from (the files in precedence order, else the default). */
export async function settingRows(
  io: Io,
  values: CommandContext['values'],
): Promise<Array<{ key: SettingKey; value: unknown; source: string }>> {
  const { settings, sources } = await loadSettingsWithSources(io, values);
  return SETTING_KEYS.map((key) => ({ key, value: settingValue(settings, key), source: sources[key] }));
}

function settingValue(settings: object, key: SettingKey): unknown {
  if (key === 'database_url') {
    const url = (settings as { databaseUrl?: string }).databaseUrl;
    return url === undefined ? undefined : withoutPassword(url);
  }
  return key
    .split('.')
    .reduce<unknown>((at, part) => (at as Record<string, unknown> | undefined)?.[part], settings);
}

/** A database URL may hold a password: it is never printed. */
function withoutPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@]*@/i, '$1:***@');
}

function shown(value: unknown): string {
  if (value === undefined) return '(not set)';
  if (Array.isArray(value)) return value.length ? value.join(', ') : '(none)';
  return String(value);
}

function checkKey(key: string | undefined): SettingKey {
  if (key && (SETTING_KEYS as readonly string[]).includes(key)) return key as SettingKey;
  throw new UsageError(
    `unknown setting ${JSON.stringify(key ?? '')}.${didYouMean(key ?? '', SETTING_KEYS)} Settings: ${SETTING_KEYS.join(', ')}.`,
  );
}

const LIST_KEYS: ReadonlySet<SettingKey> = new Set([
  'skills.enable',
  'skills.disable',
  'serve.skills',
  'serve.agents',
]);

/** A value as typed on the command line: lists comma-separated (or JSON), numbers as numbers. */
function parseValue(key: SettingKey, raw: string): unknown {
  if (LIST_KEYS.has(key)) {
    if (raw.trim().startsWith('[')) return JSON.parse(raw);
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }
  if (key === 'serve.sandbox.network') return raw === 'true' ? true : raw === 'false' ? false : raw;
  if (
    key === 'context_window' ||
    key === 'context_messages' ||
    key === 'tool_budget' ||
    key === 'tool_budget_chars' ||
    key === 'serve.limits.concurrent_turns' ||
    key === 'serve.limits.turns_per_minute' ||
    key === 'serve.limits.workspace_bytes'
  ) {
    const number = Number(raw);
    return Number.isFinite(number) && raw.trim() !== '' ? number : raw;
  }
  return raw;
}

/**
 * Writes `settings` into the file (its provider section kept as it is), after checking it as a load would: a problem
 * the file already has is pointed at in it; one the change would bring names the change (`what`), as the new text
 * is never written.
 */
async function writeSettings(
  io: Io,
  file: string,
  what: string,
  change: (settings: Record<string, unknown>) => void,
): Promise<void> {
  const { readConfigFile, ProviderError } = await import('@birdie/providers');
  const { checkSettings, settingsProblem } = await import('../settings-schema.js');
  const current = existsSync(file)
    ? await readConfigFile(file).catch((error: unknown) => {
        throw error instanceof ProviderError ? configFileProblem(io, error) : error;
      })
    : undefined;
  if (current) checkSettings(current);
  const settings = structuredClone(current?.settings ?? {});
  change(settings);
  const problem = settingsProblem(settings);
  if (!('layer' in problem)) throw new UsageError(`${what}: ${problem.reason}; ${file} is unchanged`);
  // A flat file of the first release is rewritten in sections; its provider fields stay as they were.
  const provider = current?.provider;
  const body: Record<string, unknown> = {};
  if (provider && Object.keys(provider).length) body.provider = provider;
  if (Object.keys(settings).length) body.settings = settings;
  await writePrivateFile(file, `${JSON.stringify(body, null, 2)}\n`);
}

/**
 * `birdie config list|get|set|unset`: the user's defaults (settings section of the config file). `skills`: the loaded
 * skills to check `skills.enable|disable` names against (the REPL's own); by default the command loads them.
 */
export async function configCommand({
  io,
  values,
  positionals,
  skills,
}: CommandContext & { skills?: () => RegistrySnapshot }): Promise<number> {
  const [sub = 'list', key, raw] = positionals;
  if (sub === 'list') {
    const rows = await settingRows(io, values);
    if (values.json === true) {
      for (const row of rows) write(io.stdout, JSON.stringify(row));
      return EXIT_OK;
    }
    io.stdout.write(
      table(
        rows.map((r) => [r.key, shown(r.value), r.source]),
        ['SETTING', 'VALUE', 'SOURCE'],
      ),
    );
    return EXIT_OK;
  }
  if (sub === 'get') {
    const name = checkKey(key);
    const row = (await settingRows(io, values)).find((r) => r.key === name)!;
    write(io.stdout, values.json === true ? JSON.stringify(row.value ?? null) : shown(row.value));
    return EXIT_OK;
  }
  if (sub === 'set' || sub === 'unset') {
    const name = checkKey(key);
    if (sub === 'set' && raw === undefined)
      throw new UsageError(`missing value. Usage: birdie config set ${name} VALUE`);
    const file = targetFile(io, values);
    const path = name.split('.');
    const last = path.pop()!;
    const what = sub === 'set' ? `${name} ${JSON.stringify(raw)}` : `unset ${name}`;
    await writeSettings(io, file, what, (settings) => {
      // The sections on the way (`serve`, `serve.limits`), made for a set; an unset leaves empty ones out.
      const sections = [settings];
      for (const part of path) {
        const at = sections.at(-1)!;
        if (sub === 'set') at[part] = { ...((at[part] as object | undefined) ?? {}) };
        sections.push((at[part] as Record<string, unknown> | undefined) ?? {});
      }
      if (sub === 'set') sections.at(-1)![last] = parseValue(name, raw!);
      else delete sections.at(-1)![last];
      for (let i = path.length - 1; i >= 0; i--)
        if (Object.keys(sections[i + 1]!).length === 0) delete sections[i]![path[i]!];
    });
    write(
      io.stdout,
      sub === 'set'
        ? `${name} = ${shown(parseValue(name, raw!))} (in ${file})`
        : `${name} unset (in ${file})`,
    );
    if (sub === 'set' && (name === 'skills.enable' || name === 'skills.disable'))
      warnUnknownSkills(
        io,
        skills ? skills() : await loadedSkills(io, values),
        name,
        parseValue(name, raw!) as string[],
      );
    return EXIT_OK;
  }
  if (sub === 'add' || sub === 'remove') return addOrRemove(io, values, sub, key, raw);
  throw new UsageError(`unknown command "config ${sub}". Try: list, get, set, unset, add, remove.`);
}

const PERMISSION_KEYS: ReadonlySet<SettingKey> = new Set([
  'permissions.allow',
  'permissions.ask',
  'permissions.deny',
]);

/**
 * `birdie config add|remove KEY VALUE`: one entry added to (or taken from) a list setting, VALUE taken whole. An
 * approval pattern holds blanks and commas (`run_bash(git log *)`), so it is never split, and it is checked against
 * the rule grammar before the file is written.
 */
async function addOrRemove(
  io: Io,
  values: CommandContext['values'],
  sub: 'add' | 'remove',
  key: string | undefined,
  raw: string | undefined,
): Promise<number> {
  const name = checkKey(key);
  if (!LIST_KEYS.has(name) && !PERMISSION_KEYS.has(name))
    throw new UsageError(
      `${name} is not a list: use birdie config set. Lists: ${[...LIST_KEYS, ...PERMISSION_KEYS].join(', ')}.`,
    );
  if (raw === undefined) throw new UsageError(`missing value. Usage: birdie config ${sub} ${name} VALUE`);
  if (PERMISSION_KEYS.has(name) && sub === 'add') {
    const { parseApprovalPattern, isApprovalRuleError } = await import('@birdie/graph');
    try {
      parseApprovalPattern(raw);
    } catch (error) {
      if (!isApprovalRuleError(error)) throw error;
      throw new UsageError(`${JSON.stringify(raw)} is not an approval pattern: ${error.message}`);
    }
  }
  const file = targetFile(io, values);
  const path = name.split('.');
  const last = path.pop()!;
  let changed = false;
  await writeSettings(io, file, `${sub} ${name} ${JSON.stringify(raw)}`, (settings) => {
    let at = settings;
    for (const part of path) {
      at[part] = { ...((at[part] as object | undefined) ?? {}) };
      at = at[part] as Record<string, unknown>;
    }
    const list = Array.isArray(at[last]) ? [...(at[last] as unknown[])] : [];
    const index = list.indexOf(raw);
    if (sub === 'add' && index === -1) list.push(raw);
    if (sub === 'remove' && index !== -1) list.splice(index, 1);
    changed = sub === 'add' ? index === -1 : index !== -1;
    at[last] = list;
  });
  if (sub === 'remove' && !changed)
    throw new UsageError(`${name} has no entry ${JSON.stringify(raw)} in ${file}; nothing removed`);
  write(
    io.stdout,
    sub === 'add'
      ? `${name}: ${changed ? 'added' : 'already has'} ${raw} (in ${file})`
      : `${name}: removed ${raw} (in ${file})`,
  );
  return EXIT_OK;
}

async function loadedSkills(io: Io, values: CommandContext['values']): Promise<RegistrySnapshot> {
  const { openTrustedRegistry } = await import('../skills.js');
  return (await openTrustedRegistry(io, values)).current();
}

/** The names a start would warn about (no loaded skill has them), said now, with the same suggestion. */
function warnUnknownSkills(
  io: Io,
  snapshot: RegistrySnapshot,
  key: 'skills.enable' | 'skills.disable',
  names: string[],
): void {
  for (const name of names) {
    const warning = unknownSkillWarning(snapshot, key, name, `setting ${key}`);
    if (warning) write(io.stderr, `birdie: ${warning}`);
  }
}
