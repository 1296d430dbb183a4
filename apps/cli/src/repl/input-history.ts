import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ensureFolder, writePrivateFile } from '@birdie/runtime/folders';
import { birdieHome } from '@birdie/runtime/paths';

/** How many inputs are kept; the file is rewritten to this many once it grows a fifth past it. */
export const HISTORY_LIMIT = 1_000;

/** The most lines the file may hold before it is cut back to the newest `limit`. */
const capOf = (limit: number) => Math.floor(limit * 1.2);

/** One user's input history: `~/.birdie/history/<user>.jsonl`, one JSON string per line (inputs can be multi-line). */
export function historyFile(env: NodeJS.ProcessEnv, userId: string): string {
  return join(birdieHome(env), 'history', `${encodeURIComponent(userId)}.jsonl`);
}

/** Every input a history file's text holds, oldest first; lines that do not parse are skipped. */
function parseEntries(text: string): string[] {
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const value = JSON.parse(line);
      if (typeof value === 'string') entries.push(value);
    } catch {}
  }
  return entries;
}

const linesOf = (entries: readonly string[]) => entries.map((e) => `${JSON.stringify(e)}\n`).join('');

/**
 * The inputs of earlier sessions, oldest first. A missing or unreadable file is an empty history (the REPL must
 * start anyway); lines that do not parse are skipped, so a torn last line costs only itself.
 */
export async function loadHistory(file: string, limit = HISTORY_LIMIT): Promise<string[]> {
  return (await readHistory(file, limit)).entries;
}

/** `loadHistory`, and how many entries the file holds after it (past the cap it was cut back to `limit`). */
async function readHistory(file: string, limit: number): Promise<{ entries: string[]; onDisk: number }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { entries: [], onDisk: 0 };
  }
  const entries = parseEntries(text);
  if (entries.length > capOf(limit)) {
    const kept = entries.slice(-limit);
    await writePrivateFile(file, linesOf(kept)).catch(() => {});
    return { entries: kept, onDisk: kept.length };
  }
  return { entries: entries.slice(-limit), onDisk: entries.length };
}

/**
 * A REPL's input history: the earlier inputs, and `remember` to add one. The cap holds while the REPL runs too:
 * once the inputs it appended take the file a fifth past `limit`, the file is cut back to the newest `limit`, read
 * from disk at that moment so inputs another session appended meanwhile are kept in order.
 */
export async function openHistory(
  file: string,
  limit = HISTORY_LIMIT,
): Promise<{ entries: string[]; remember(text: string): void }> {
  const [{ entries, onDisk }] = await Promise.all([readHistory(file, limit), prepareHistory(file)]);
  let lines = onDisk;
  return {
    entries,
    remember(text) {
      appendHistory(file, text);
      if (++lines > capOf(limit)) lines = cutHistory(file, limit) ?? lines;
    },
  };
}

/**
 * Rewrites the file to its newest `limit` entries, synchronously (an input appended meanwhile must not land in a
 * file about to be replaced); returns how many it kept, undefined when the file could not be rewritten.
 */
function cutHistory(file: string, limit: number): number | undefined {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const kept = parseEntries(readFileSync(file, 'utf8')).slice(-limit);
    writeFileSync(temp, linesOf(kept), { mode: 0o600, flag: 'wx' });
    renameSync(temp, file);
    return kept.length;
  } catch {
    rmSync(temp, { force: true });
    return undefined;
  }
}

/**
 * Adds one input. Synchronous, so the last input before `/quit` is on disk before the process ends; the folder is
 * made first (once is enough, but it is cheap). A history that cannot be written never stops the session.
 */
export async function prepareHistory(file: string): Promise<void> {
  await ensureFolder(dirname(file)).catch(() => {});
}

export function appendHistory(file: string, text: string): void {
  try {
    appendFileSync(file, `${JSON.stringify(text)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  } catch {}
}
