import {
  lstatSync,
  mkdirSync,
  realpathSync,
  rmdirSync,
  type Stats,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  type LedgerEntry,
  looksLikeStandIn,
  STAND_IN_MODE,
  sweepOnce,
  writeLedger,
} from './sandbox-stand-in-ledger.js';

/**
 * The one list of what stays read-only in a sandboxed call's working directory: files and folders that other programs
 * run, or take commands from, later and outside the sandbox, without the user asking for that file — any git command
 * (hooks, `core.fsmonitor`, `core.pager`, aliases, filters in `.git/config`), direnv on `cd`, an editor opening the
 * folder, an agent starting there, a hook manager on commit. Files the user's own commands read on purpose (a
 * Makefile, package.json scripts, tests) are the project's content and stay writable.
 *
 * `kind` is what stands in for a path that does not exist yet, so that a tool cannot create it either: an empty
 * folder (git skips an empty `.git` folder and keeps looking upwards; an empty `.git` file would break it) or an
 * empty file.
 */
const PROTECTED: readonly { name: string; kind: 'folder' | 'file'; why: string }[] = [
  {
    name: '.git',
    kind: 'folder',
    why: 'git: hooks, and config that names programs (core.fsmonitor, core.pager)',
  },
  { name: '.birdie', kind: 'folder', why: 'birdie: project skills, agents and settings' },
  { name: '.agents', kind: 'folder', why: 'birdie and other agents: project skills' },
  { name: '.claude', kind: 'folder', why: 'Claude Code: project hooks and commands' },
  { name: '.codex', kind: 'folder', why: 'Codex: project config' },
  { name: '.gemini', kind: 'folder', why: 'Gemini CLI: project settings' },
  { name: '.vscode', kind: 'folder', why: 'VS Code: tasks and settings that name programs' },
  { name: '.idea', kind: 'folder', why: 'JetBrains IDEs: run configurations' },
  { name: '.devcontainer', kind: 'folder', why: 'dev containers: commands run on open' },
  { name: '.envrc', kind: 'file', why: 'direnv: run by the shell on cd' },
  { name: '.husky', kind: 'folder', why: 'husky: git hooks' },
  { name: '.pre-commit-config.yaml', kind: 'file', why: 'pre-commit: commands run on commit' },
  { name: 'lefthook.yml', kind: 'file', why: 'lefthook: commands run on commit' },
  { name: '.lefthook.yml', kind: 'file', why: 'lefthook: commands run on commit' },
];

/** The names, relative to the working directory, that a sandboxed call cannot change or create (see `PROTECTED`). */
export const PROTECTED_WORKSPACE_PATHS: readonly string[] = PROTECTED.map((entry) => entry.name);

interface Placeholder {
  count: number;
  kind: 'folder' | 'file';
  dev: number;
  ino: number;
}

/**
 * The protected paths of `cwd` (a real path) as the sandbox keeps them read-only, without making stand-ins: each name
 * in the working directory, and the real path it leads to where that lies inside it. For a check made outside the
 * sandbox (birdie's own file tools under it).
 */
export function protectedPathsOf(cwd: string): string[] {
  const found: string[] = [];
  for (const { name } of PROTECTED) {
    const path = join(cwd, name);
    found.push(path);
    try {
      const target = realpathSync(path);
      if (target !== path && target.startsWith(`${cwd}/`)) found.push(target);
    } catch {
      // absent, or a dangling link: its name is the path
    }
  }
  return found;
}

/** Stand-ins this process made, by path: concurrent calls in one folder share one, and the last call removes it. */
const placeholders = new Map<string, Placeholder>();

/**
 * bubblewrap's arguments that keep the protected paths of `cwd` (a real path, bound read-write before them)
 * read-only, and a `release` to call once no process of the call is left: it removes the stand-ins it made.
 */
export function protectWorkspace(
  cwd: string,
  /** Paths the sandbox hides or shows read-only already: neither stood in for nor bound (hiding takes precedence). */
  covered: (path: string) => boolean = () => false,
): {
  /** The paths bound read-only over themselves. */
  paths: string[];
  /** Whether `release` would remove a stand-in now (no other call of this process shares it). */
  removes: () => boolean;
  release: () => void;
} {
  const paths: string[] = [];
  const held: string[] = [];
  const lent: string[] = [];
  sweepOnce();
  const wanted = PROTECTED.map(({ name, kind }) => ({ path: join(cwd, name), kind })).filter(
    ({ path }) => !covered(path),
  );
  // Written down before they are made, so that a process killed meanwhile has them removed by the next one (an entry
  // without its identity is never removed: see sweepOnce); then again with the identity of each one made.
  const missing = wanted.filter(({ path }) => !placeholders.has(path) && !present(path));
  if (missing.length > 0) writeLedger([...ledgerEntries(), ...missing]);
  for (const { path, kind } of wanted) {
    const target = existing(path, held, lent) ?? standIn(path, kind, held, lent);
    // A symlink out of the working directory points where the sandbox cannot write anyway.
    if (target && (target === path || target.startsWith(`${cwd}/`)) && !covered(target)) paths.push(target);
  }
  if (missing.length > 0 || lent.length > 0) writeLedger(ledgerEntries());
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    for (const path of held) drop(path);
    for (const path of lent) giveBack(path);
    if (missing.length > 0 || lent.length > 0) writeLedger(ledgerEntries());
  };
  const removes = () => !released && held.some((path) => placeholders.get(path)?.count === 1);
  return { paths, removes, release };
}

/**
 * Stand-ins this process did not make but binds (another process's, maybe one killed meanwhile), by path, with how
 * many of its calls do: listed in its ledger as borrowed, so that no process sweeps them while this one lives.
 */
const borrowed = new Map<string, number>();

/** The stand-ins this process holds now, made or borrowed, as its ledger lists them. */
function ledgerEntries(): LedgerEntry[] {
  return [
    ...[...placeholders].map(([path, { kind, dev, ino }]) => ({ path, kind, dev, ino })),
    ...[...borrowed.keys()].map((path) => ({ path, kind: 'folder' as const, borrowed: true })),
  ];
}

function giveBack(path: string): void {
  const count = (borrowed.get(path) ?? 1) - 1;
  if (count > 0) borrowed.set(path, count);
  else borrowed.delete(path);
}

function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The real path of what is there (a stand-in of a concurrent call included), or undefined when nothing is. */
function existing(path: string, held: string[], lent: string[]): string | undefined {
  let stat: Stats;
  try {
    stat = lstatSync(path);
  } catch {
    return undefined;
  }
  const shared = placeholders.get(path);
  if (shared) {
    shared.count += 1;
    held.push(path);
  } else if (looksLikeStandIn(stat, path)) {
    borrowed.set(path, (borrowed.get(path) ?? 0) + 1);
    lent.push(path);
  }
  try {
    return realpathSync(path);
  } catch {
    return undefined; // a dangling symlink: left as it is (the tool cannot replace it: its name is bound below)
  }
}

function standIn(path: string, kind: 'folder' | 'file', held: string[], lent: string[]): string | undefined {
  try {
    if (kind === 'folder') mkdirSync(path, { mode: STAND_IN_MODE.folder });
    else writeFileSync(path, '', { flag: 'wx', mode: STAND_IN_MODE.file });
  } catch {
    // Made meanwhile by someone else (then it is bound as it is next time), or the folder cannot be written here at
    // all, by the tool either.
    return existing(path, held, lent);
  }
  const { dev, ino } = lstatSync(path);
  placeholders.set(path, { count: 1, kind, dev, ino });
  held.push(path);
  return path;
}

/** One call less on the stand-in; the last one removes it, if it is still the empty one this process made. */
function drop(path: string): void {
  const entry = placeholders.get(path);
  if (!entry) return;
  entry.count -= 1;
  if (entry.count > 0) return;
  placeholders.delete(path);
  try {
    const now = lstatSync(path);
    if (now.dev !== entry.dev || now.ino !== entry.ino) return;
    if (entry.kind === 'folder')
      rmdirSync(path); // fails, and keeps it, if anything was put in it meanwhile
    else if (now.size === 0) unlinkSync(path);
  } catch {
    // gone already, or not empty: the user's now
  }
}
