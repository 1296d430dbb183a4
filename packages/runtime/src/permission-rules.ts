import { join } from 'node:path';
import type { ApprovalRule } from '@birdie/graph';
import type { ConfigFile } from '@birdie/providers';
import { UsageError } from './errors.js';
import { readRegularTextIfPresent } from './regular-file.js';
import { PERMISSION_EFFECTS, type Settings } from './settings.js';

/** The project's settings file, relative to the working folder (the registry's trust digest covers it). */
export const PROJECT_SETTINGS = join('.birdie', 'settings.json');

/** A `permissions` entry of a config file that the rule grammar refuses. */
export interface BadPermissionPattern {
  file: ConfigFile;
  effect: (typeof PERMISSION_EFFECTS)[number];
  index: number;
  pattern: unknown;
  /** `settings.permissions.deny[0] "…" is not an approval pattern: …` */
  reason: string;
}

/**
 * The `permissions` patterns of the config files that the rule grammar refuses, in file order. The grammar's module
 * loads only when there are rules.
 */
export async function badPermissionPatterns(files: readonly ConfigFile[]): Promise<BadPermissionPattern[]> {
  const listed = files.flatMap((file) =>
    PERMISSION_EFFECTS.flatMap((effect) => {
      const list = (file.settings as { permissions?: Record<string, unknown> } | undefined)?.permissions?.[
        effect
      ];
      return Array.isArray(list) ? list.map((pattern, index) => ({ file, effect, pattern, index })) : [];
    }),
  );
  if (listed.length === 0) return [];
  const { parseApprovalPattern, isApprovalRuleError } = await import('@birdie/graph');
  const bad: BadPermissionPattern[] = [];
  for (const entry of listed) {
    try {
      parseApprovalPattern(String(entry.pattern));
    } catch (error) {
      if (!isApprovalRuleError(error)) throw error;
      const { effect, index, pattern } = entry;
      const reason = `settings.permissions.${effect}[${index}] ${JSON.stringify(pattern)} is not an approval pattern: ${error.message}`;
      bad.push({ ...entry, reason });
    }
  }
  return bad;
}

/**
 * Every `permissions` pattern of the config files, checked against the rule grammar: a bad one is a usage error
 * pointing at it in its file, as any other bad setting.
 */
export async function checkPermissionPatterns(files: readonly ConfigFile[]): Promise<void> {
  const [first] = await badPermissionPatterns(files);
  if (!first) return;
  const { positioned } = await import('./settings-schema.js');
  throw positioned(first.file, ['permissions', first.effect, first.index], first.reason);
}

/** The user's rules, each with the config file it came from. */
export function userRules(settings: Pick<Settings, 'permissionRules'>): ApprovalRule[] {
  return settings.permissionRules.map(({ pattern, effect, file }) => ({
    pattern,
    effect,
    source: { kind: 'user', name: file },
  }));
}

export interface ProjectRules {
  rules: ApprovalRule[];
  /** Allow rules left out because the folder is not trusted (or changed since it was). */
  untrustedAllows: number;
  /**
   * The entries that could not be used (a bad pattern, a value that is not a list), each named; the file's other
   * rules apply.
   */
  problem?: string;
}

/**
 * The project's rules (`.birdie/settings.json` → `permissions`). Its `ask` and `deny` rules only narrow what runs,
 * so they apply whoever wrote them; its `allow` rules widen it, so they apply only once the user trusted the folder
 * as it is now (`trusted`: the trust digest, which covers this file, still matches).
 *
 * One bad entry leaves out that entry alone (a deny rule written as one string rather than a list is taken as it
 * is); a file that is not JSON, or is there but cannot be read (a folder or a pipe in its place, no read permission),
 * whose deny rules cannot be read at all, is a `UsageError`: running without them would run what the project forbids.
 * Only a missing file means no rules.
 */
export async function projectRules(cwd: string, trusted: boolean): Promise<ProjectRules> {
  const path = join(cwd, PROJECT_SETTINGS);
  // A file that is there but cannot be read (a folder in its place, no read permission) may hold deny rules too: as
  // with one that is not JSON, nothing runs. Only a missing file means no rules.
  let text: string | undefined;
  try {
    text = await readRegularTextIfPresent(path);
  } catch (error) {
    throw unreadableProject(path, (error as Error).message);
  }
  // A byte-order mark (some editors write one) is not part of the JSON.
  text = text?.replace(/^\uFEFF/, '');
  if (text === undefined) return { rules: [], untrustedAllows: 0 };
  const { parseApprovalPattern } = await import('@birdie/graph');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw unreadableProject(path, (error as Error).message);
  }
  const permissions = isObject(parsed) ? parsed.permissions : undefined;
  if (permissions === undefined) return { rules: [], untrustedAllows: 0 };
  if (!isObject(permissions)) throw unreadableProject(path, '`permissions` is not an object');
  const rules: ApprovalRule[] = [];
  const problems: string[] = [];
  let untrustedAllows = 0;
  for (const effect of PERMISSION_EFFECTS) {
    const value = permissions[effect];
    if (value === undefined) continue;
    // A narrowing rule written as one pattern is still that rule; an allow rule is only ever taken as written.
    const list = Array.isArray(value)
      ? value
      : effect !== 'allow' && typeof value === 'string'
        ? [value]
        : undefined;
    if (!Array.isArray(value))
      problems.push(
        `permissions.${effect} must be a list of approval patterns${list ? ' (its one pattern is used)' : ''}`,
      );
    for (const [index, pattern] of (list ?? []).entries()) {
      const where = Array.isArray(value) ? `permissions.${effect}[${index}]` : `permissions.${effect}`;
      if (typeof pattern !== 'string') {
        problems.push(`${where} is not a string`);
        continue;
      }
      try {
        parseApprovalPattern(pattern);
      } catch (error) {
        problems.push(`${where} ${JSON.stringify(pattern)}: ${(error as Error).message}`);
        continue;
      }
      if (effect === 'allow' && !trusted) untrustedAllows++;
      else rules.push({ pattern, effect, source: { kind: 'project', name: path } });
    }
  }
  return {
    rules,
    untrustedAllows,
    ...(problems.length ? { problem: `${path}: ${problems.join('; ')}` } : {}),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unreadableProject(path: string, why: string): UsageError {
  return new UsageError(
    `cannot read the project's approval rules in ${path} (${why}): its deny rules could not be applied, so nothing ` +
      'runs. Fix the file, or remove it.',
  );
}
