import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

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
}

/** The modes a stand-in is made with: an entry is removed only while it still is an empty one of these. */
export const STAND_IN_MODE = { folder: 0o555, file: 0o444 } as const;

function ledgerDir(): string {
  const home = process.env.BIRDIE_HOME;
  return join(home && isAbsolute(home) ? home : join(homedir(), '.birdie'), 'sandbox', 'stand-ins');
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
    // Written whole, then renamed over the old one: a process killed while writing leaves the previous ledger.
    const next = `${file}.${Date.now()}.tmp`;
    writeFileSync(next, JSON.stringify(entries), { mode: 0o600 });
    renameSync(next, file);
  } catch {
    // no ledger here (see above)
  }
}

/**
 * Once per process, before its first stand-in: removes the stand-ins of every process in the ledger that is gone,
 * each only while it is still an empty folder or file of a stand-in's mode (what a user put there, or made of it,
 * stays), then that process's ledger.
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
  for (const name of names) {
    const file = join(dir, name);
    if (file === mine) continue;
    const owner = /^(\d+)-(\d+)\.json(?:\.\d+\.tmp)?$/.exec(name);
    if (!owner) continue;
    if (startTime(Number(owner[1])) === owner[2]) continue; // still running
    if (!name.endsWith('.tmp')) for (const entry of readEntries(file)) removeStandIn(entry);
    try {
      unlinkSync(file);
    } catch {
      // removed by another process sweeping at the same time
    }
  }
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

function removeStandIn({ path, kind }: LedgerEntry): void {
  try {
    const stat = lstatSync(path);
    if ((stat.mode & 0o7777) !== STAND_IN_MODE[kind]) return;
    if (kind === 'folder' && stat.isDirectory())
      rmdirSync(path); // fails, and keeps it, if anything is in it
    else if (kind === 'file' && stat.isFile() && stat.size === 0) unlinkSync(path);
  } catch {
    // gone already, or not empty: the user's
  }
}
