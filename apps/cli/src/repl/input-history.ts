import { appendFileSync, chmodSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ensureFolder, writePrivateFile } from '../folders.js';
import { birdieHome } from '../paths.js';

/** How many inputs are kept; the file is rewritten to this many once it grows a fifth past it. */
export const HISTORY_LIMIT = 1_000;

/** One user's input history: `~/.birdie/history/<user>.jsonl`, one JSON string per line (inputs can be multi-line). */
export function historyFile(env: NodeJS.ProcessEnv, userId: string): string {
  return join(birdieHome(env), 'history', `${encodeURIComponent(userId)}.jsonl`);
}

/**
 * The inputs of earlier sessions, oldest first. A missing or unreadable file is an empty history (the REPL must
 * start anyway); lines that do not parse are skipped, so a torn last line costs only itself.
 */
export async function loadHistory(file: string, limit = HISTORY_LIMIT): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const value = JSON.parse(line);
      if (typeof value === 'string') entries.push(value);
    } catch {}
  }
  if (entries.length > limit * 1.2) {
    const kept = entries.slice(-limit);
    await writePrivateFile(file, kept.map((e) => `${JSON.stringify(e)}\n`).join('')).catch(() => {});
    return kept;
  }
  return entries.slice(-limit);
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
