import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';

/**
 * Once any process sees SQLite call the file malformed, every later process must open it read-only:
 * the damaged page may be one that only some sessions touch, and writing on would spread the damage.
 * The mark is a small file beside the database naming the file's device and inode, so a recovered
 * file put in its place (a new inode) is not held to the old verdict.
 */
interface Mark {
  dev: number;
  ino: number;
  reason: string;
  at: string;
}

export function markPath(file: string): string {
  return `${file}.malformed`;
}

/** Best effort: a folder that refuses the mark file still gets the error in this process. */
export function markMalformed(file: string, reason: string): void {
  try {
    const { dev, ino } = statSync(file);
    const mark: Mark = { dev, ino, reason, at: new Date().toISOString() };
    writeFileSync(markPath(file), `${JSON.stringify(mark)}\n`, { mode: 0o600 });
  } catch {
    // Read-only folder, vanished file: nothing more to do.
  }
}

/** The recorded reason when the mark exists and names this very file. */
export function readMalformedMark(file: string): string | undefined {
  let mark: Mark;
  try {
    mark = JSON.parse(readFileSync(markPath(file), 'utf8')) as Mark;
  } catch {
    return undefined;
  }
  const info = statSync(file, { throwIfNoEntry: false });
  if (info && info.dev === mark.dev && info.ino === mark.ino) return String(mark.reason);
  clearMalformedMark(file);
  return undefined;
}

export function clearMalformedMark(file: string): void {
  try {
    rmSync(markPath(file), { force: true });
  } catch {
    // A read-only folder keeps the stale mark; it names another inode and is ignored.
  }
}
