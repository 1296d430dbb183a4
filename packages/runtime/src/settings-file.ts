import { isDeepStrictEqual } from 'node:util';
import type { ConfigFile } from '@birdie/providers';
import type { RegistrySnapshot } from '@birdie/registry';
import { configFileProblem, explicitConfigPath } from './config.js';
import { configFileThere } from './config-file-there.js';
import { decimalNumber } from './decimal.js';
import { didYouMean } from './did-you-mean.js';
import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import { writePrivateFile } from './folders.js';
import type { RuntimeIo } from './io.js';
import { configPaths, loadSettingsWithSources } from './isolation.js';
import { configFile } from './paths.js';
import { badPermissionPatterns } from './permission-rules.js';
import { SETTING_KEYS, type SettingKey } from './settings.js';
import type { SettingsProblem } from './settings-schema.js';
import { unknownSkillWarning } from './skill-flags.js';

/** A setting with its value (a database URL without its password) and where it came from. */
export interface SettingRow {
  key: SettingKey;
  value: unknown;
  /** The file that set it (in precedence order), else `default`. */
  source: string;
  /** Why the value that file holds cannot be used (`value` is then as written there); see `settingsReport`. */
  invalid?: string;
}

/** The file `set`, `unset`, `add` and `remove` write: `--config FILE` when given, else `~/.birdie/config.json`. */
export function settingsFileOf(io: RuntimeIo, flags: Flags): string {
  return explicitConfigPath(io, flags) ?? configFile(io.env);
}

/** Every setting with its value and where it came from (the files in precedence order, else the default). */
export async function settingRows(io: RuntimeIo, flags: Flags): Promise<SettingRow[]> {
  const { settings, sources } = await loadSettingsWithSources(io, flags);
  return SETTING_KEYS.map((key) => ({ key, value: settingValue(settings, key), source: sources[key] }));
}

/**
 * Every setting as `settingRows` gives it, read past the problems of the settings sections, so that `birdie config`
 * can show a file a start refuses: a setting whose value in the file that sets it cannot be used is shown as written,
 * with why (`invalid`); `problems` words each as a start does (file, line, column), with the command that fixes it.
 * A wrong provider section, or an unknown section, is one of the `problems` (the settings are still shown); a file
 * that cannot be read or parsed is still a usage error.
 */
export async function settingsReport(
  io: RuntimeIo,
  flags: Flags,
): Promise<{ rows: SettingRow[]; problems: string[] }> {
  const [{ readConfigFile, ProviderError }, schema] = await Promise.all([
    import('@birdie/providers'),
    import('./settings-schema.js'),
  ]);
  // A wrong provider section (or an unknown section) does not hide the settings: it is one of the problems.
  const sectionProblems: string[] = [];
  const files = await Promise.all(
    configPaths(io, flags).map((path) =>
      readConfigFile(path, {
        sectionProblems: (problem) => sectionProblems.push(configFileProblem(io, problem).message),
      }).catch((error: unknown) => {
        throw error instanceof ProviderError ? configFileProblem(io, error) : error;
      }),
    ),
  );
  const found: Array<{ file: ConfigFile; problem: SettingsProblem }> = [];
  const { settings, sources } = schema.mergeSettings(files, (file, problem) => found.push({ file, problem }));
  // Patterns the rule grammar refuses: the schema takes any string, a start refuses the file (permission-rules.ts).
  const badPatterns = await badPermissionPatterns(files);
  const rows = SETTING_KEYS.map((key): SettingRow => {
    const path = key.split('.');
    const badPattern = badPatterns.find((b) => key === `permissions.${b.effect}`);
    if (badPattern)
      return {
        key,
        value: settingValue(settings, key),
        source: sources[key],
        invalid: badPattern.reason.slice(`settings.${key}`.length),
      };
    // The file a start takes this setting from: the highest one that has it.
    const file = files.find((f) => valueAt(f.settings, path) !== undefined);
    const bad = file && found.find((f) => f.file === file && f.problem.key === key)?.problem;
    if (!file || !bad) return { key, value: settingValue(settings, key), source: sources[key] };
    const written = valueAt(file.settings, path);
    const prefix = `settings.${key} `;
    return {
      key,
      value: key === 'database_url' && typeof written === 'string' ? withoutPassword(written) : written,
      source: `file ${file.path}`,
      invalid: bad.reason.startsWith(prefix) ? bad.reason.slice(prefix.length) : bad.reason,
    };
  });
  return {
    rows,
    problems: [
      ...sectionProblems,
      ...found.map(({ file, problem }) => settingsProblemText(io, file, problem, schema.positioned)),
      ...badPatterns.map(({ file, effect, index, pattern, reason }) => {
        const { message } = schema.positioned(file, ['permissions', effect, index], reason);
        const config = file.path === configFile(io.env) ? '' : ` --config ${file.path}`;
        return `${message}; \`birdie config remove permissions.${effect} ${shellQuoted(String(pattern))}${config}\` fixes it`;
      }),
    ],
  };
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

/** A database URL may hold a password: it is never shown. */
function withoutPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@]*@/i, '$1:***@');
}

/** A setting's name as typed; a usage error names the closest one and lists them all. */
export function checkSettingKey(key: string | undefined): SettingKey {
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
  'memory_files',
  'web_fetch_allow',
]);

const PERMISSION_KEYS: ReadonlySet<SettingKey> = new Set([
  'permissions.allow',
  'permissions.ask',
  'permissions.deny',
]);

/** A value as typed on the command line: lists comma-separated (or JSON), numbers as numbers. */
export function parseSettingValue(key: SettingKey, raw: string): unknown {
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
    key === 'serve.limits.workspace_bytes' ||
    key === 'serve.limits.mcp_sessions' ||
    key === 'serve.limits.mcp_sessions_per_user' ||
    key === 'serve.limits.mcp_idle_seconds'
  ) {
    const number = decimalNumber(raw);
    return Number.isFinite(number) ? number : raw;
  }
  return raw;
}

/**
 * Writes `settings` into the file (its provider section kept as it is), after checking the result as a load would.
 * A problem the change brings names the change (`what`), and nothing is written. Problems the file already had (a
 * hand-edited typo) do not stop the change, so `birdie config` can repair its own file: they stay as they were, and
 * are returned, pointed at in the file as written, with the command that fixes each.
 */
async function writeSettings(
  io: RuntimeIo,
  file: string,
  what: string,
  change: (settings: Record<string, unknown>) => void,
): Promise<{ problems: string[] }> {
  const { readConfigFile, parseConfigFile, ProviderError } = await import('@birdie/providers');
  const schema = await import('./settings-schema.js');
  // A wrong provider section stops a change (the file is the provider's too: `birdie setup` repairs it first).
  // A link to nothing is refused as reading it refuses it, not replaced by a new file that drops what it held.
  const current = configFileThere(file)
    ? await readConfigFile(file).catch((error: unknown) => {
        throw error instanceof ProviderError ? configFileProblem(io, error) : error;
      })
    : undefined;
  const settings = structuredClone(current?.settings ?? {});
  change(settings);
  const before = schema.settingsProblems(current?.settings).problems;
  const after = schema.settingsProblems(settings).problems;
  const brought = after.find(
    (problem) => !before.some((old) => sameProblem(old, problem, current?.settings, settings)),
  );
  if (brought) throw new UsageError(`${what}: ${brought.reason}; ${file} is unchanged`);
  // A flat file of the first release is rewritten in sections; its provider fields stay as they were.
  const provider = current?.provider;
  const body: Record<string, unknown> = {};
  if (provider && Object.keys(provider).length) body.provider = provider;
  if (Object.keys(settings).length) body.settings = settings;
  const text = `${JSON.stringify(body, null, 2)}\n`;
  // birdie's own folder is kept private; a file named with --config leaves its folder's mode alone.
  await writePrivateFile(file, text, { ownFolder: file === configFile(io.env) });
  if (after.length === 0) return { problems: [] };
  const written = parseConfigFile(text, file);
  return { problems: after.map((problem) => settingsProblemText(io, written, problem, schema.positioned)) };
}

/** Whether a problem of the result is one the file had: the same words at the same place, its setting untouched. */
function sameProblem(
  old: SettingsProblem,
  problem: SettingsProblem,
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
): boolean {
  return (
    old.reason === problem.reason &&
    old.path.join('.') === problem.path.join('.') &&
    isDeepStrictEqual(valueAt(before, problem.dropped), valueAt(after, problem.dropped))
  );
}

function valueAt(section: Record<string, unknown> | undefined, path: readonly string[]): unknown {
  return path.reduce<unknown>(
    (at, part) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined),
    section,
  );
}

/**
 * A problem of a settings file as a start words it (file, line, column), and the `birdie config` command that fixes
 * it when it is in a setting (an unknown key is the file's to edit).
 */
function settingsProblemText(
  io: RuntimeIo,
  file: ConfigFile,
  problem: SettingsProblem,
  positioned: typeof import('./settings-schema.js').positioned,
): string {
  const { message } = positioned(file, problem.path, problem.reason);
  const config = file.path === configFile(io.env) ? '' : ` --config ${file.path}`;
  if (!problem.key) {
    // A name no setting has (a typo, or a setting of another version): `config unset` takes it out of the file.
    const removable = problem.dropped.length > 0 && problem.path.every((part) => typeof part === 'string');
    return removable
      ? `${message}; \`birdie config unset ${problem.dropped.join('.')}${config}\` removes it`
      : message;
  }
  return `${message}; \`birdie config set ${problem.key} VALUE${config}\` or \`birdie config unset ${problem.key}${config}\` fixes it`;
}

/**
 * Sets (`raw` given) or unsets a setting in the settings file (`settingsFileOf`), making or dropping the sections on
 * the way (`serve`, `serve.limits`). Returns the file, the value written and the problems the file still has (see
 * `writeSettings`); usage errors leave the file unchanged.
 */
export async function writeSetting(
  io: RuntimeIo,
  flags: Flags,
  key: SettingKey,
  raw: string | undefined,
): Promise<{ file: string; value?: unknown; problems: string[] }> {
  const file = settingsFileOf(io, flags);
  const path = key.split('.');
  const last = path.pop()!;
  const set = raw !== undefined;
  const value = set ? parseSettingValue(key, raw) : undefined;
  const { problems } = await writeSettings(
    io,
    file,
    set ? `${key} ${JSON.stringify(raw)}` : `unset ${key}`,
    (settings) => {
      // The sections on the way, made for a set; an unset leaves empty ones out.
      const sections = [settings];
      for (const part of path) {
        const at = sections.at(-1)!;
        if (set) at[part] = { ...((at[part] as object | undefined) ?? {}) };
        sections.push((at[part] as Record<string, unknown> | undefined) ?? {});
      }
      if (set) sections.at(-1)![last] = value;
      else delete sections.at(-1)![last];
      for (let i = path.length - 1; i >= 0; i--)
        if (Object.keys(sections[i + 1]!).length === 0) delete sections[i]![path[i]!];
    },
  );
  return set ? { file, value, problems } : { file, problems };
}

/**
 * Takes a name no setting has (`aproval`, `serve.limitz`) out of the settings file: the repair of a file a start
 * refuses for it. Undefined when the file has no such name (the caller's usage error stands); a known setting's name
 * or a section (`serve`) is never taken this way.
 */
export async function unsetUnknownSetting(
  io: RuntimeIo,
  flags: Flags,
  name: string,
): Promise<{ file: string; problems: string[] } | undefined> {
  const path = name.split('.');
  if (
    path.some((part) => part === '') ||
    SETTING_KEYS.some((key) => `${key}.`.startsWith(`${name}.`) || name.startsWith(`${key}.`))
  )
    return undefined;
  const file = settingsFileOf(io, flags);
  if (!configFileThere(file)) return undefined;
  const { readConfigFile } = await import('@birdie/providers');
  const current = await readConfigFile(file, { sectionProblems: () => {} }).catch(() => undefined);
  let at: unknown = current?.settings;
  for (const part of path) {
    if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, part))
      return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  const { problems } = await writeSettings(io, file, `unset ${name}`, (settings) => {
    const sections: Array<Record<string, unknown>> = [settings];
    for (const part of path.slice(0, -1)) sections.push(sections.at(-1)![part] as Record<string, unknown>);
    delete sections.at(-1)![path.at(-1)!];
    // Sections left empty go too, as an unset of a setting leaves them out.
    for (let i = path.length - 2; i >= 0; i--)
      if (Object.keys(sections[i + 1]!).length === 0) delete sections[i]![path[i]!];
  });
  return { file, problems };
}

/**
 * One entry added to (or taken from) a list setting, `raw` taken whole. An approval pattern holds blanks and commas
 * (`run_bash(git log *)`), so it is never split, and it is checked against the rule grammar before the file is
 * written. `changed` is false when the entry to add was already there; removing a missing entry is a usage error.
 */
export async function changeListSetting(
  io: RuntimeIo,
  flags: Flags,
  change: 'add' | 'remove',
  key: SettingKey,
  raw: string,
): Promise<{ file: string; changed: boolean; value: unknown[]; problems: string[] }> {
  if (PERMISSION_KEYS.has(key) && change === 'add') {
    const { parseApprovalPattern, isApprovalRuleError } = await import('@birdie/graph');
    try {
      parseApprovalPattern(raw);
    } catch (error) {
      if (!isApprovalRuleError(error)) throw error;
      throw new UsageError(`${JSON.stringify(raw)} is not an approval pattern: ${error.message}`);
    }
  }
  const file = settingsFileOf(io, flags);
  const path = key.split('.');
  const last = path.pop()!;
  let changed = false;
  let value: unknown[] = [];
  const { problems } = await writeSettings(
    io,
    file,
    `${change} ${key} ${JSON.stringify(raw)}`,
    (settings) => {
      let at = settings;
      for (const part of path) {
        at[part] = { ...((at[part] as object | undefined) ?? {}) };
        at = at[part] as Record<string, unknown>;
      }
      // A value that is not a list (a hand edit gone wrong) is not turned into one behind the user's back.
      if (at[last] !== undefined && !Array.isArray(at[last]))
        throw new UsageError(
          `${key} in ${file} is not a list (it holds ${JSON.stringify(at[last])}); \`birdie config unset ${key}\` clears it; ${file} is unchanged`,
        );
      const list = Array.isArray(at[last]) ? [...(at[last] as unknown[])] : [];
      const index = list.indexOf(raw);
      // Refused before anything is written.
      if (change === 'remove' && index === -1)
        throw new UsageError(`${key} has no entry ${JSON.stringify(raw)} in ${file}; nothing removed`);
      if (change === 'add' && index === -1) list.push(raw);
      if (change === 'remove') list.splice(index, 1);
      changed = change === 'add' ? index === -1 : true;
      at[last] = list;
      value = list;
    },
  );
  return { file, changed, value, problems };
}

/** Whether `add`/`remove` work on the setting; a usage error lists the ones they do. */
export function checkListSetting(key: SettingKey): void {
  if (!LIST_KEYS.has(key) && !PERMISSION_KEYS.has(key))
    throw new UsageError(
      `${key} is not a list: use birdie config set. Lists: ${[...LIST_KEYS, ...PERMISSION_KEYS].join(', ')}.`,
    );
}

/**
 * The skills a setting just written is checked against: `snapshot`, else the trusted registry loaded now. When they
 * cannot be loaded (a store that does not open, say), the check is skipped, never the write: the warning says so, and
 * why, so the command's outcome (the value written) and its message agree.
 */
async function checkedAgainst(
  io: RuntimeIo,
  flags: Flags,
  snapshot: RegistrySnapshot | undefined,
  key: SettingKey,
  value: string,
): Promise<RegistrySnapshot | { skipped: string }> {
  if (snapshot) return snapshot;
  try {
    const { openTrustedRegistry } = await import('./skills.js');
    return (await openTrustedRegistry(io, flags)).current();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      skipped: `setting ${key}: \`${value}\` was written but not checked against the skills (they could not be loaded: ${reason})`,
    };
  }
}

/**
 * The warnings a start would give for skill names no loaded skill has (same wording and suggestion), said when the
 * setting is written. `snapshot`: the skills to check against; by default the trusted registry is loaded for them
 * (when it cannot be, the one warning says the check was skipped, and why).
 */
export async function unknownSkillWarnings(
  io: RuntimeIo,
  flags: Flags,
  key: 'skills.enable' | 'skills.disable',
  names: readonly string[],
  snapshot?: RegistrySnapshot,
): Promise<string[]> {
  if (names.length === 0) return [];
  const skills = await checkedAgainst(io, flags, snapshot, key, names.join(', '));
  if ('skipped' in skills) return [skills.skipped];
  return names.flatMap((name) => unknownSkillWarning(skills, key, name, `setting ${key}`) ?? []);
}

/**
 * The warnings for an approval rule being written: one naming a skill, tool or argument the skills do not have
 * (rule-target-warnings.ts), and an allow rule that names raw shell tools without a command (`run_bash`, `shell:*`): valid, and
 * written, but it allows none of their calls (the same finding as `agents check`'s `approve-never-applies`).
 * `snapshot`: the skills to check against; by default the trusted registry is loaded for them (when it cannot be, the
 * one warning says the check was skipped, and why).
 */
export async function allowRuleWarnings(
  io: RuntimeIo,
  flags: Flags,
  key: SettingKey,
  pattern: string,
  snapshot?: RegistrySnapshot,
): Promise<string[]> {
  if (!key.startsWith('permissions.')) return [];
  const [{ rawToolsNamedOnly }, { ruleTargetWarnings }] = await Promise.all([
    import('@birdie/registry'),
    import('./rule-target-warnings.js'),
  ]);
  const skills = await checkedAgainst(io, flags, snapshot, key, pattern);
  if ('skipped' in skills) return [skills.skipped];
  const unknown = await ruleTargetWarnings(key, pattern, skills);
  if (unknown.length > 0 || key !== 'permissions.allow') return unknown;
  return rawToolsNamedOnly(pattern, skills.skills).map(
    (tool) =>
      `setting ${key}: \`${pattern}\` allows no command of \`${tool}\`, which runs raw shell commands: only a command pattern allows one, such as \`${tool}(ls *)\``,
  );
}

/** A value as one shell word, for a command the user may paste: single quotes unless it is plain. */
function shellQuoted(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
