// read_file's reading: a file of any size costs a few chunks of memory. The file is stat'ed (through its open
// descriptor) before anything is read; the first chunk serves both the binary check and the first lines, so a range
// near the start is one small read; a range further on streams to it, counting newlines in one reused buffer; what
// is returned stops at READ_LIMIT_BYTES.
import { close, constants, fstat, open, read } from 'node:fs';
import { promisify } from 'node:util';
import { FilesystemError } from './errors.mjs';
import { looksBinary } from './text.mjs';

/**
 * The most bytes of file content read_file returns in one call. It stays under the runtime's 32,000-character cut of
 * tool output, so the model always sees the note that says how to read on.
 */
export const READ_LIMIT_BYTES = 30_000;
// The first read covers the binary check (8,000 bytes) and, usually, the lines of a range near the top.
const FIRST_CHUNK_BYTES = 16 * 1024;
const CHUNK_BYTES = 256 * 1024;
const NEWLINE = 0x0a;
// The callback API on a plain descriptor: per call it costs less than a FileHandle, and a small read is mostly
// such per-call costs.
const openFd = promisify(open);
const fstatFd = promisify(fstat);
const readFd = promisify(read);
const closeFd = promisify(close);

/**
 * @typedef {{ start?: number; end?: number; shown: string; signal?: AbortSignal }} ReadRequest
 * @typedef {{
 *   text: string; size: number; first: number; last: number;
 *   cut: 'none' | 'lines' | 'long-line';
 * }} ReadResult
 * `cut`: `lines` = whole lines `first`..`last` fit under the limit and more were asked for; `long-line` = line
 * `last` alone is over the limit and `text` is its start.
 */

/**
 * Lines `start`..`end` (1-based, inclusive; default the whole file) of a regular file, exactly as stored (line
 * endings included), cut at READ_LIMIT_BYTES after the last whole line that fits, or inside a first line that is
 * over the limit on its own. Reads no further than the size the file had when it was opened.
 * @param {string} path
 * @param {ReadRequest} request
 * @returns {Promise<ReadResult>}
 */
export async function readText(path, request) {
  const ranged = request.start !== undefined || request.end !== undefined;
  const first = request.start ?? 1;
  const last = request.end ?? Number.POSITIVE_INFINITY;
  checkRange(request.start, request.end);
  const { fd, size } = await openRegularFile(path, request.shown);
  try {
    let buffer = Buffer.allocUnsafe(0);
    /** @type {Buffer[]} */
    const parts = [];
    let taken = 0; // bytes in `parts`
    let lineStart = 0; // bytes of the range before the current line
    let line = 1; // number of the line being read
    let endsWithNewline = false;
    let position = 0;
    while (position < size) {
      request.signal?.throwIfAborted();
      // Inside the range: no more than can still be returned, plus one byte. Before it: a small first read (it may
      // hold the range), then big ones.
      const want = Math.min(
        size - position,
        line >= first ? READ_LIMIT_BYTES + 1 - taken : position === 0 ? FIRST_CHUNK_BYTES : CHUNK_BYTES,
      );
      if (want > buffer.length) buffer = Buffer.allocUnsafe(want);
      const { bytesRead } = await readFd(fd, buffer, 0, want, position);
      if (bytesRead === 0) break; // the file shrank
      const chunk = buffer.subarray(0, bytesRead);
      if (position === 0 && looksBinary(chunk)) {
        throw new FilesystemError(
          'binary-file',
          `"${request.shown}" looks like a binary file (${size} bytes); it is not shown as text.`,
        );
      }
      position += bytesRead;
      endsWithNewline = chunk[bytesRead - 1] === NEWLINE;
      // The part of this chunk inside the range is one span, copied once (the buffer is reused).
      let from = line >= first ? 0 : -1;
      const keep = (/** @type {number} */ to) => {
        parts.push(Buffer.from(chunk.subarray(from, to)));
        taken += to - from;
      };
      let i = 0;
      while (i < bytesRead) {
        const newline = chunk.indexOf(NEWLINE, i);
        const stop = newline === -1 ? bytesRead : newline + 1;
        if (line >= first) {
          if (from === -1) from = i;
          if (taken + stop - from > READ_LIMIT_BYTES) {
            keep(i);
            return overLimit(parts, chunk.subarray(i, stop), { size, first, line, lineStart, taken });
          }
        }
        if (newline === -1) break; // the line goes on in the next chunk
        i = stop;
        line += 1;
        if (from !== -1) lineStart = taken + i - from;
        if (line > last) {
          keep(i);
          return result(parts, size, first, line - 1, 'none');
        }
      }
      if (from !== -1) keep(bytesRead);
    }
    const lines = size === 0 || endsWithNewline ? line - 1 : line;
    if (ranged && first > lines) {
      throw new FilesystemError(
        'bad-range',
        `"${request.shown}" has ${lines} lines; start_line ${first} is past the end.`,
      );
    }
    return result(parts, size, first, lines, 'none');
  } finally {
    await closeFd(fd);
  }
}

/**
 * `readText`'s answer for text the application gave (an editor's buffer, through `context.files`): the same lines,
 * the same limit and the same `cut`, counted on the UTF-8 bytes of `text`.
 * @param {string} text
 * @param {ReadRequest} request
 * @returns {ReadResult}
 */
export function sliceText(text, request) {
  checkRange(request.start, request.end);
  const ranged = request.start !== undefined || request.end !== undefined;
  const first = request.start ?? 1;
  const last = request.end ?? Number.POSITIVE_INFINITY;
  const bytes = Buffer.from(text, 'utf8');
  /** @type {Buffer[]} */
  const lines = [];
  for (let i = 0; i < bytes.length; ) {
    const newline = bytes.indexOf(NEWLINE, i);
    const stop = newline === -1 ? bytes.length : newline + 1;
    lines.push(bytes.subarray(i, stop));
    i = stop;
  }
  if (ranged && first > lines.length) {
    throw new FilesystemError(
      'bad-range',
      `"${request.shown}" has ${lines.length} lines; start_line ${first} is past the end.`,
    );
  }
  /** @type {Buffer[]} */
  const parts = [];
  let taken = 0;
  const end = Math.min(last, lines.length);
  for (let line = first; line <= end; line += 1) {
    const piece = /** @type {Buffer} */ (lines[line - 1]);
    if (taken + piece.length > READ_LIMIT_BYTES) {
      return overLimit(parts, piece, { size: bytes.length, first, line, lineStart: taken, taken });
    }
    parts.push(piece);
    taken += piece.length;
  }
  return result(parts, bytes.length, first, end, 'none');
}

/**
 * Opens a file for reading and checks, on the open descriptor, that it is a regular file: a directory, device, FIFO or
 * socket is refused before a byte is read. O_NONBLOCK makes a FIFO open at once instead of waiting for a writer.
 * @param {string} path @param {string} shown
 */
async function openRegularFile(path, shown) {
  const fd = await openFd(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await fstatFd(fd);
    if (info.isDirectory()) {
      throw new FilesystemError(
        'not-a-file',
        `"${shown}" is a directory; use list_dir to see what it holds.`,
      );
    }
    if (!info.isFile()) {
      throw new FilesystemError(
        'not-a-file',
        `"${shown}" is not a regular file (a device, pipe or socket); it is not read.`,
      );
    }
    return { fd, size: info.size };
  } catch (error) {
    await closeFd(fd);
    throw error;
  }
}

/** @param {number | undefined} start @param {number | undefined} end */
function checkRange(start, end) {
  const first = start ?? 1;
  if (
    !Number.isInteger(first) ||
    first < 1 ||
    (end !== undefined && (!Number.isInteger(end) || end < first))
  ) {
    throw new FilesystemError(
      'bad-range',
      `Bad line range ${start ?? ''}-${end ?? ''}: start_line is 1 or more and end_line is not before it.`,
    );
  }
}

/**
 * @param {Buffer[]} parts @param {number} size @param {number} first @param {number} last
 * @param {ReadResult['cut']} cut
 * @returns {ReadResult}
 */
function result(parts, size, first, last, cut) {
  return { text: Buffer.concat(parts).toString('utf8'), size, first, last, cut };
}

/**
 * The limit falls inside line `at.line`. With whole lines of the range already taken, return those; else that first
 * line alone is over the limit: return its start, ending on a whole UTF-8 character.
 * @param {Buffer[]} parts
 * @param {Buffer} piece the current line's bytes in this chunk, which do not fit
 * @param {{ size: number; first: number; line: number; lineStart: number; taken: number }} at
 * @returns {ReadResult}
 */
function overLimit(parts, piece, at) {
  if (at.line > at.first) {
    const whole = Buffer.concat(parts).subarray(0, at.lineStart);
    return { text: whole.toString('utf8'), size: at.size, first: at.first, last: at.line - 1, cut: 'lines' };
  }
  const room = READ_LIMIT_BYTES - at.taken;
  const head = Buffer.concat([...parts, piece.subarray(0, room)]);
  let end = head.length;
  // The first byte left out is 10xxxxxx: it continues a character begun before the cut; leave that one out too.
  if (((piece[room] ?? 0) & 0xc0) === 0x80) {
    while (end > 0 && ((head[end - 1] ?? 0) & 0xc0) === 0x80) end -= 1;
    end = Math.max(0, end - 1);
  }
  return {
    text: head.subarray(0, end).toString('utf8'),
    size: at.size,
    first: at.first,
    last: at.line,
    cut: 'long-line',
  };
}
