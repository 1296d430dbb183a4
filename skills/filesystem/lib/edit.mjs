// edit_file's replacement, shared by the tool and its preview so that what the user approves is what is written:
// exact text, found where it is unique (or everywhere, when asked), replaced literally (no `$&` patterns, no regex).
import { FilesystemError } from './errors.mjs';

/** How many match lines an ambiguity message names. */
const MAX_NAMED_LINES = 10;

/**
 * @typedef {{ old_string: string; new_string: string; replace_all?: boolean }} EditArgs
 * @typedef {{ text: string; count: number; lines: number[] }} EditResult
 */

/**
 * Checks the arguments before anything is read: the text to find must be given and differ from its replacement.
 * @param {Partial<Record<keyof EditArgs, unknown>>} args
 * @returns {EditArgs}
 */
export function editArgs(args) {
  if (typeof args.old_string !== 'string' || typeof args.new_string !== 'string') {
    throw new FilesystemError('bad-content', 'old_string and new_string must be strings (exact text).');
  }
  if (args.old_string === '') {
    throw new FilesystemError(
      'bad-content',
      'old_string is empty: give the exact text to replace. To create a file or replace all of it, use write_file.',
    );
  }
  if (args.old_string === args.new_string) {
    throw new FilesystemError('no-change', 'old_string and new_string are the same: nothing would change.');
  }
  return { old_string: args.old_string, new_string: args.new_string, replace_all: args.replace_all === true };
}

/**
 * The file's new text. No match, or more than one without `replace_all`, is refused: a guess at which one was meant
 * could change the wrong place.
 * @param {string} text the file's current text
 * @param {EditArgs} args
 * @param {string} shown the path as the model wrote it
 * @returns {EditResult}
 */
export function applyEdit(text, args, shown) {
  const starts = occurrences(text, args.old_string);
  if (starts.length === 0) {
    throw new FilesystemError(
      'no-match',
      `old_string was not found in "${shown}". It must match exactly, whitespace and line endings included; ` +
        'read_file shows the current text.',
    );
  }
  const lines = lineNumbers(text, starts);
  if (starts.length > 1 && !args.replace_all) {
    const named = lines.slice(0, MAX_NAMED_LINES).join(', ');
    const more = lines.length > MAX_NAMED_LINES ? ', …' : '';
    throw new FilesystemError(
      'ambiguous-match',
      `old_string occurs ${starts.length} times in "${shown}" (lines ${named}${more}); the file was not changed. ` +
        'Include more of the surrounding text to pick one, or set replace_all to true to replace every one.',
    );
  }
  // split/join and slicing take new_string literally; String.replace would read `$&`, `$1`, `$$` in it.
  const replaced = args.replace_all
    ? text.split(args.old_string).join(args.new_string)
    : text.slice(0, starts[0]) +
      args.new_string +
      text.slice(/** @type {number} */ (starts[0]) + args.old_string.length);
  return { text: replaced, count: starts.length, lines };
}

/** Start offsets of the non-overlapping occurrences, left to right (as split counts them). @param {string} text @param {string} needle */
function occurrences(text, needle) {
  const starts = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
    starts.push(at);
  return starts;
}

/** 1-based line of each offset (offsets ascending), in one pass. @param {string} text @param {number[]} offsets */
function lineNumbers(text, offsets) {
  const lines = [];
  let line = 1;
  let from = 0;
  for (const offset of offsets) {
    for (let at = text.indexOf('\n', from); at !== -1 && at < offset; at = text.indexOf('\n', at + 1))
      line += 1;
    from = offset;
    lines.push(line);
  }
  return lines;
}
