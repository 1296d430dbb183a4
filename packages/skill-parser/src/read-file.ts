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
  ruleId: 'unreadable-file' | 'file-too-large',
  reason: string,
): { messages: VFileMessage[] } {
  const reporter = new Reporter(file);
  reporter.report(ruleId, reason);
  return { messages: reporter.messages };
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
    const info = fstatSync(fd);
    if (!info.isFile()) return failure(file, 'unreadable-file', `Cannot read ${label}: not a regular file`);
    if (info.size > MAX_SKILL_FILE_BYTES) {
      return failure(
        file,
        'file-too-large',
        `${label} is ${info.size} bytes; the limit is 1 MiB (not parsed)`,
      );
    }
    let buffer = Buffer.allocUnsafe(info.size + 1);
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
    return buffer.toString('utf8', 0, length);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return failure(file, 'unreadable-file', `Cannot read ${label}: ${code}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
