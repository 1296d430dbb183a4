import { close, constants, fstat, open, read, type Stats } from 'node:fs';
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

/*
 * The callback forms of open, fstat, read and close, each as a promise: a number for the file instead of a
 * `FileHandle` object (and its own close promise), which costs less per SKILL.md when a thousand are read.
 */
const openFile = (path: string, flags: number) =>
  new Promise<number>((done, fail) => open(path, flags, (error, fd) => (error ? fail(error) : done(fd))));
const statFile = (fd: number) =>
  new Promise<Stats>((done, fail) => fstat(fd, (error, info) => (error ? fail(error) : done(info))));
const readInto = (fd: number, buffer: Buffer, offset: number, length: number) =>
  new Promise<number>((done, fail) =>
    read(fd, buffer, offset, length, null, (error, bytesRead) => (error ? fail(error) : done(bytesRead))),
  );
const closeFile = (fd: number) =>
  new Promise<void>((done, fail) => close(fd, (error) => (error ? fail(error) : done())));

/**
 * Opens the file once, without blocking (a named pipe would otherwise wait for a writer forever), and reads it only
 * when it is a regular file of at most MAX_SKILL_FILE_BYTES — checked on the open handle, and again while reading, so a
 * file that grows in between is refused too.
 */
export async function readAuthoredText(
  file: string,
  label: string,
): Promise<string | { messages: VFileMessage[] }> {
  let fd: number | undefined;
  try {
    fd = await openFile(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = await statFile(fd);
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
      const bytesRead = await readInto(fd, buffer, length, wanted);
      length += bytesRead;
      // A short read of a regular file is its end: no second read (one trip to the thread pool less per skill).
      if (bytesRead < wanted) break;
    }
    return buffer.toString('utf8', 0, length);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return failure(file, 'unreadable-file', `Cannot read ${label}: ${code}`);
  } finally {
    if (fd !== undefined) await closeFile(fd);
  }
}
