import { type Dirent, readdirSync } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { McpSession } from '@birdie/graph';

/** Bytes of one mentioned file attached at most; a longer file is cut there, with a note. */
export const MENTION_FILE_BYTES = 64 * 1024;
/** Bytes of all the files of one message attached at most; files past it are left out, with a note. */
export const MENTION_TOTAL_BYTES = 256 * 1024;

/** An `@…` word: at the start of the message or after a blank (so `me@example.com` is not one). */
const MENTION = /(^|\s)@([^\s@]+)/g;

export interface MentionOptions {
  /** The working folder: every mentioned path resolves (symlinks followed) inside it, or is refused. */
  cwd: string;
  /**
   * The session's MCP servers (`agent.mcpSession`): `@name:uri` where `name` is one of them attaches that resource
   * (`resources/read`, subscribed for the session); without it, or for another name, `@name:…` is a path.
   */
  mcp?: Pick<McpSession, 'has' | 'attachResource'>;
  signal?: AbortSignal;
}

export interface MentionResult {
  /** The message the model gets: the text as typed, then each attached file in a `<file>` block. */
  text: string;
  /** One line per mention for the user: what was attached (and cut), or why it was not. */
  notes: string[];
  /** The attached files, relative to the working folder. */
  attached: string[];
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** A mentioned path's trailing punctuation (`see @a.ts,` / `(@a.ts)`) is not part of it. */
function trimmed(word: string): string {
  return word.replace(/[,;:!?)\]}'"]+$/, '').replace(/\.+$/, '');
}

type Resolved = { file: string; shown: string } | { problem: string } | undefined;

/** `word` as a file of `cwd`; a refusal says why; undefined when nothing by that name exists (plain text). */
async function resolveMention(cwd: string, rootReal: string, word: string): Promise<Resolved> {
  if (word.includes('\0')) return { problem: 'a NUL byte' };
  const candidates = [...new Set([word, trimmed(word)])].filter(Boolean);
  for (const candidate of candidates) {
    const lexical = resolve(cwd, candidate);
    const info = await stat(lexical).catch(() => undefined);
    if (!info) continue;
    if (isAbsolute(candidate) || !inside(resolve(cwd), lexical))
      return { problem: 'outside the working folder' };
    const real = await realpath(lexical).catch(() => lexical);
    if (!inside(rootReal, real)) return { problem: 'a link to outside the working folder' };
    if (info.isDirectory()) return { problem: 'a folder (mention its files)' };
    if (!info.isFile()) return { problem: 'not a regular file' };
    return { file: real, shown: candidate };
  }
  return undefined;
}

async function readCapped(path: string, max: number): Promise<{ text: string; size: number } | undefined> {
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    const buffer = Buffer.alloc(Math.min(size, max));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const bytes = buffer.subarray(0, bytesRead);
    if (bytes.includes(0)) return undefined;
    return { text: bytes.toString('utf8'), size };
  } finally {
    await handle.close();
  }
}

/**
 * Attaches the files a message mentions (`@src/app.ts`): each one that resolves inside the working folder is read
 * (up to `MENTION_FILE_BYTES`, `MENTION_TOTAL_BYTES` for all) and added after the text; a path outside it (`..`,
 * absolute, a symlink out), a folder, a binary file is refused with a note. A word that names no file stays text.
 */
export async function attachMentions(message: string, options: MentionOptions): Promise<MentionResult> {
  const rootReal = await realpath(options.cwd).catch(() => resolve(options.cwd));
  const notes: string[] = [];
  const blocks: string[] = [];
  const attached: string[] = [];
  let budget = MENTION_TOTAL_BYTES;
  const seen = new Set<string>();
  for (const match of message.matchAll(MENTION)) {
    const word = match[2]!;
    const colon = word.indexOf(':');
    const server = colon > 0 ? word.slice(0, colon) : '';
    if (options.mcp && server !== '' && options.mcp.has(server)) {
      const uri = word.slice(colon + 1);
      const key = `mcp\0${word}`;
      if (uri === '' || seen.has(key)) continue;
      seen.add(key);
      const resource = await attachResource(options.mcp, server, uri, budget, options.signal);
      notes.push(resource.note);
      if (resource.text === undefined) continue;
      budget -= Buffer.byteLength(resource.text);
      attached.push(`${server}:${uri}`);
      blocks.push(resource.text);
      continue;
    }
    const found = await resolveMention(options.cwd, rootReal, word);
    if (!found) continue;
    if ('problem' in found) {
      notes.push(`@${word} not attached: ${found.problem}`);
      continue;
    }
    if (seen.has(found.file)) continue;
    seen.add(found.file);
    if (budget <= 0) {
      notes.push(
        `@${found.shown} not attached: the message already carries ${MENTION_TOTAL_BYTES} bytes of files`,
      );
      continue;
    }
    const read = await readCapped(found.file, Math.min(MENTION_FILE_BYTES, budget)).catch(() => undefined);
    if (!read) {
      notes.push(`@${found.shown} not attached: not a text file (or unreadable)`);
      continue;
    }
    const bytes = Buffer.byteLength(read.text);
    budget -= bytes;
    const cut = bytes < read.size;
    const shown = relative(rootReal, found.file) || found.shown;
    attached.push(shown);
    notes.push(
      cut
        ? `attached @${shown} (first ${bytes} of ${read.size} bytes: the rest is left out)`
        : `attached @${shown} (${read.size} bytes)`,
    );
    const note = cut ? `\n[truncated: ${read.size - bytes} more bytes not attached]` : '';
    blocks.push(`<file path="${shown}">\n${read.text}${note}\n</file>`);
  }
  return { text: blocks.length > 0 ? `${message}\n\n${blocks.join('\n\n')}` : message, notes, attached };
}

/** One `@server:uri`: its contents (cut to what the message may still carry), or a note saying why not. */
async function attachResource(
  mcp: NonNullable<MentionOptions['mcp']>,
  server: string,
  uri: string,
  budget: number,
  signal?: AbortSignal,
): Promise<{ text?: string; note: string }> {
  if (budget <= 0)
    return {
      note: `@${server}:${uri} not attached: the message already carries ${MENTION_TOTAL_BYTES} bytes`,
    };
  try {
    const { text, note } = await mcp.attachResource(server, uri, signal);
    const max = Math.min(MENTION_FILE_BYTES, budget);
    if (Buffer.byteLength(text) <= max) return { text, note };
    const cut = Buffer.from(text).subarray(0, max).toString('utf8');
    return {
      text: `${cut}\n[truncated: the resource is longer than ${max} bytes]\n</mcp-resource>`,
      note: `${note}; only its first ${max} bytes go with the message`,
    };
  } catch (error) {
    return {
      note: `@${server}:${uri} not attached: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** Names Tab offers after `@`: entries of the folder `partial` is in (inside `cwd`), folders with a `/`. */
export function mentionCandidates(cwd: string, partial: string): string[] {
  const slash = partial.lastIndexOf('/');
  const folder = slash === -1 ? '' : partial.slice(0, slash + 1);
  const dir = resolve(cwd, folder);
  if (isAbsolute(folder) || !inside(resolve(cwd), dir)) return [];
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  // Hidden entries only when asked for (`@.`), as shells do.
  const hidden = partial.slice(slash + 1).startsWith('.');
  return entries
    .filter((entry) => hidden || !entry.name.startsWith('.'))
    .slice(0, 500)
    .map((entry) => `${folder}${entry.name}${entry.isDirectory() ? '/' : ''}`);
}
