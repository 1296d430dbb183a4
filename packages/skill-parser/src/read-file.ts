import { isUtf8 } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { VFileMessage } from 'vfile-message';
import { Reporter } from './diagnostics.js';
import { MAX_SKILL_FILE_BYTES } from './limits.js';

/** Runs `fn` over `items`, at most `limit` at a time; results keep the order of `items`. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export function failure(
  file: string,
  ruleId: 'unreadable-file' | 'file-too-large' | 'text-encoding',
  reason: string,
  at?: { line: number; column: number },
): { messages: VFileMessage[] } {
  const reporter = new Reporter(file);
  const message = reporter.report(ruleId, reason);
  if (at) {
    message.line = at.line;
    message.column = at.column;
    message.place = at;
  }
  return { messages: reporter.messages };
}

/**
 * A file that is not UTF-8 is refused rather than decoded with U+FFFD in place of its bad bytes: a tool's command
 * would run, and the model would read, other characters than the author wrote. Said at the first bad byte.
 */
function notUtf8(file: string, label: string, bytes: Buffer): { messages: VFileMessage[] } {
  const bad = firstBadByte(bytes);
  if (bad === undefined)
    return failure(
      file,
      'text-encoding',
      `${label} is not UTF-8 text: birdie would show and run other characters than the file holds (not parsed)`,
    );
  const lineStart = bytes.lastIndexOf(0x0a, bad - 1) + 1;
  const line = bytes.subarray(0, lineStart).filter((byte) => byte === 0x0a).length + 1;
  const column = [...bytes.subarray(lineStart, bad).toString('utf8')].length + 1;
  const byte = `0x${bytes[bad]!.toString(16).padStart(2, '0')}`;
  return failure(
    file,
    'text-encoding',
    `${label} is not UTF-8 text (byte ${byte} at line ${line}, column ${column}): birdie would show and run other characters than the file holds (not parsed)`,
    { line, column },
  );
}

/**
 * The offset of the first byte where UTF-8 (RFC 3629) fails: a lead byte that cannot start a sequence (C0, C1, F5–FF,
 * a lone continuation byte), a sequence cut short, or a second byte outside its lead's range (an overlong form, a
 * surrogate, past U+10FFFF). Undefined when it finds none, which `isUtf8` then disagrees with: said without a place.
 */
function firstBadByte(bytes: Buffer): number | undefined {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const follow =
      lead >= 0xc2 && lead <= 0xdf
        ? 1
        : lead >= 0xe0 && lead <= 0xef
          ? 2
          : lead >= 0xf0 && lead <= 0xf4
            ? 3
            : -1;
    if (follow < 0) return i;
    // The second byte's range depends on the lead: it rules out overlong forms, surrogates and code points past U+10FFFF.
    const [low, high] =
      lead === 0xe0
        ? [0xa0, 0xbf]
        : lead === 0xed
          ? [0x80, 0x9f]
          : lead === 0xf0
            ? [0x90, 0xbf]
            : lead === 0xf4
              ? [0x80, 0x8f]
              : [0x80, 0xbf];
    const second = bytes[i + 1];
    if (second === undefined || second < low || second > high) return i;
    for (let k = 2; k <= follow; k++) if (i + k >= bytes.length || bytes[i + k]! >> 6 !== 2) return i;
    i += follow + 1;
  }
  return undefined;
}

/**
 * Opens the file once, without blocking (a named pipe would otherwise wait for a writer forever), and reads it only
 * when it is a regular file of at most MAX_SKILL_FILE_BYTES — checked on the open file, and again while reading, so a
 * file that grows in between is refused too.
 *
 * The four calls are synchronous on purpose: a SKILL.md is small and parsing it (also synchronous) takes longer than
 * reading it, while each asynchronous call costs a trip through the thread pool and a promise — together more than
 * the parse (discovering 1,000 generated skills took about 1.3× the CPU time with the callback forms). The
 * function stays async so that callers need not change if that ever flips.
 */
export async function readAuthoredText(
  file: string,
  label: string,
): Promise<string | { messages: VFileMessage[] }> {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    // BigInt stats: Node 20's own realpathSync (module resolution) reads the plain stat buffer a synchronous stat
    // fills, and stops following symbolic links when it last held a pipe; a later import through a link (pnpm's
    // node_modules) would then load a second copy of a package, or miss its dependencies.
    const info = fstatSync(fd, { bigint: true });
    if (!info.isFile()) return failure(file, 'unreadable-file', `Cannot read ${label}: not a regular file`);
    const size = Number(info.size);
    if (size > MAX_SKILL_FILE_BYTES) {
      return failure(file, 'file-too-large', `${label} is ${size} bytes; the limit is 1 MiB (not parsed)`);
    }
    let buffer = Buffer.allocUnsafe(size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > MAX_SKILL_FILE_BYTES) {
          return failure(file, 'file-too-large', `${label} grew past the limit of 1 MiB while it was read`);
        }
        const grown = Buffer.allocUnsafe(Math.min(length * 2, MAX_SKILL_FILE_BYTES + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const wanted = buffer.length - length;
      const bytesRead = readSync(fd, buffer, length, wanted, null);
      length += bytesRead;
      // A short read of a regular file is its end: no second read.
      if (bytesRead < wanted) break;
    }
    const bytes = buffer.subarray(0, length);
    return isUtf8(bytes) ? bytes.toString('utf8') : notUtf8(file, label, bytes);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return failure(file, 'unreadable-file', `Cannot read ${label}: ${code}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
