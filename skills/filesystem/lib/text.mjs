import { FilesystemError } from './errors.mjs';

/** Same rule as git and grep: a NUL byte near the start means binary. @param {Buffer} bytes */
export function looksBinary(bytes) {
  return bytes.subarray(0, 8000).includes(0);
}

/**
 * Lines `start`..`end` (1-based, inclusive) exactly as they are in the file, line endings included.
 * @param {string} text
 * @param {number | undefined} start
 * @param {number | undefined} end
 * @param {string} shown
 */
export function sliceLines(text, start, end, shown) {
  const lines = text.length === 0 ? [] : text.split(/(?<=\n)/);
  const first = start ?? 1;
  const last = Math.min(end ?? lines.length, lines.length);
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
  if (first > lines.length) {
    throw new FilesystemError(
      'bad-range',
      `"${shown}" has ${lines.length} lines; start_line ${first} is past the end.`,
    );
  }
  return lines.slice(first - 1, last).join('');
}
