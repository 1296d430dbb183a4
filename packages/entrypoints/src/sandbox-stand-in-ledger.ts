import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  type Stats,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * The stand-ins (sandbox-protected.ts) a birdie process has made, written down outside the working directory before
 * they are made: a process killed during a call (a server's worker SIGKILLed, the OOM killer) never removes its
 * stand-ins, and the next process of the same birdie home that makes a sandbox removes those of a process that is
 * gone. One file per process, `<pid>-<start time>.json` under `$BIRDIE_HOME/sandbox/stand-ins` (the pid's start
 * time tells a reused pid from the process that wrote the file).
 *
 * Best effort by design: a home that cannot be written keeps no ledger, and then a killed process's stand-ins stay,
 * as they did before; the sandbox works the same either way.
 */

export interface LedgerEntry {
  path: string;
  kind: 'folder' | 'file';
  /** The stand-in's identity once made: an entry without it (written before making) is never removed. */
  dev?: number;
  ino?: number;
  /** A stand-in this process binds but did not make: no one removes it while this process lives. */
  borrowed?: boolean;
}

/** The modes a stand-in is made with: an entry is removed only while it still is an empty one of these. */
export const STAND_IN_MODE = { folder: 0o555, file: 0o444 } as const;

/** As the runtime finds the birdie home: `$BIRDIE_HOME` (resolved), else `~/.birdie`. */
function ledgerDir(): string {
  const home = process.env.BIRDIE_HOME;
  return join(home ? resolve(home) : join(homedir(), '.birdie'), 'sandbox', 'stand-ins');
}

/**
 * Makes the ledger's folder before a sandbox's view is worked out, so that the birdie home it lies in exists then
 * and is hidden from the call like the rest of the home (a home made later inside the working directory would be
 * writable by the tool, and so would the ledger the next process acts on).
 */
export function prepareLedger(): void {
  try {
    mkdirSync(ledgerDir(), { recursive: true, mode: 0o700 });
  } catch {
    // no ledger here (see above)
  }
}

/** Whether `stat` is what a stand-in is made as: an empty folder of mode 0555, or an empty file of mode 0444. */
export function looksLikeStandIn(stat: Stats, path?: string): boolean {
  const mode = stat.mode & 0o7777;
  if (stat.isFile()) return mode === STAND_IN_MODE.file && stat.size === 0;
  if (!stat.isDirectory() || mode !== STAND_IN_MODE.folder || path === undefined) return false;
  try {
    return readdirSync(path).length === 0;
  } catch {
    return false;
  }
}

/** The start time of `pid` in clock ticks since boot (field 22 of /proc/PID/stat), or undefined when it is gone. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // after the parenthesised command name: field 3 (state) onwards; the start time is field 22
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

let own: string | undefined;
let swept = false;

function ownFile(): string | undefined {
  if (own === undefined) {
    const start = startTime(process.pid);
    if (start === undefined) return undefined;
    own = `${process.pid}-${start}.json`;
  }
  return join(ledgerDir(), own);
}

/** Replaces this process's ledger with `entries` (none: removes it). */
export function writeLedger(entries: readonly LedgerEntry[]): void {
  const file = ownFile();
  if (file === undefined) return;
  try {
    if (entries.length === 0) {
      unlinkSync(file);
      return;
    }
    mkdirSync(ledgerDir(), { recursive: true, mode: 0o700 });
    replaceFile(file, entries);
  } catch {
    // no ledger here (see above)
  }
}

/**
 * Once per process, before its first stand-in: removes the stand-ins of every process in the ledger that is gone,
 * then that process's ledger. A stand-in is removed only when its entry has the identity it was made with, it still
 * has it and is still an empty folder or file of a stand-in's mode (what a user put there, or made of it, stays),
 * and no living process lists its path (one may bind it, borrowed, or have made a new one there). Processes are told
 * apart by pid and start time, which a pid namespace of its own would confuse: such workers want homes of their own.
 */
export function sweepOnce(): void {
  if (swept) return;
  swept = true;
  const dir = ledgerDir();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const mine = ownFile();
  const gone: string[] = [];
  const inUse = new Set<string>();
  for (const name of names) {
    const file = join(dir, name);
    const owner = /^(\d+)-(\d+)\.json(?:\.\d+\.tmp)?$/.exec(name);
    if (!owner) continue;
    if (file === mine || startTime(Number(owner[1])) === owner[2]) {
      for (const entry of readEntries(file)) inUse.add(entry.path);
    } else gone.push(file);
  }
  for (const file of gone) {
    const entries = file.endsWith('.tmp') ? [] : readEntries(file);
    for (const entry of entries) if (!inUse.has(entry.path)) removeStandIn(entry);
    // What a living process binds now is kept for a later sweep, once that process is gone too.
    const kept = entries.filter((e) => inUse.has(e.path) && !e.borrowed && typeof e.ino === 'number');
    try {
      if (kept.length > 0) replaceFile(file, kept);
      else unlinkSync(file);
    } catch {
      // removed by another process sweeping at the same time
    }
  }
}

/** Written whole, then renamed over the old one: a process killed while writing leaves the previous ledger. */
function replaceFile(file: string, entries: readonly LedgerEntry[]): void {
  const next = `${file}.${Date.now()}.tmp`;
  writeFileSync(next, JSON.stringify(entries), { mode: 0o600 });
  renameSync(next, file);
}

function readEntries(file: string): LedgerEntry[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (e): e is LedgerEntry =>
        typeof e?.path === 'string' && isAbsolute(e.path) && (e.kind === 'folder' || e.kind === 'file'),
    );
  } catch {
    return [];
  }
}

function removeStandIn({ path, kind, dev, ino, borrowed }: LedgerEntry): void {
  if (borrowed || typeof dev !== 'number' || typeof ino !== 'number') return;
  try {
    const stat = lstatSync(path);
    if (stat.dev !== dev || stat.ino !== ino || !looksLikeStandIn(stat, path)) return;
    if (kind === 'folder') rmdirSync(path);
    else if (kind === 'file' && stat.isFile()) unlinkSync(path);
  } catch {
    // gone already, or not empty: the user's
  }
}
