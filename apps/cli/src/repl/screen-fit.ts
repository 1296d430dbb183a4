// Fitting the REPL's own lines (banner, status, `/` menu) to the terminal: a line wider than the terminal is broken at
// its edge wherever it falls (mid-word, mid-number), and a prompt frame taller than the screen cannot be redrawn.
import { fitWidth } from '@birdie/terminal/live-lines';
import { textWidth } from '@birdie/terminal/text-width';

/** The width of `stream` when it is a terminal (what a line must fit in to stay one row); else no limit. */
export function terminalColumns(stream: unknown): number {
  const tty = stream as { isTTY?: boolean; columns?: number };
  return tty.isTTY && tty.columns ? tty.columns : Number.POSITIVE_INFINITY;
}

/** The height of `stream` when it is a terminal; else no limit. */
export function terminalRows(stream: unknown): number {
  const tty = stream as { isTTY?: boolean; rows?: number };
  return tty.isTTY && tty.rows ? tty.rows : Number.POSITIVE_INFINITY;
}

/**
 * `parts` joined by `separator` into as few rows as fit in `columns` (one column left free: a row that fills the last
 * column makes some terminals wrap before the next), breaking only between parts; a part wider than a row is cut
 * with an ellipsis.
 */
export function packParts(parts: readonly string[], separator: string, columns: number): string[] {
  const width = Math.max(1, columns - 1);
  const rows: string[] = [];
  let row = '';
  for (const part of parts) {
    const piece = textWidth(part) > width ? fitWidth(part, width) : part;
    if (row && textWidth(row + separator + piece) <= width) row += separator + piece;
    else {
      if (row) rows.push(row);
      row = piece;
    }
  }
  if (row) rows.push(row);
  return rows;
}

/** Below this many columns for the second column, `fittedTable` puts it under the first instead of beside it. */
const MIN_BESIDE = 24;

/**
 * Two columns (a name, what it is) as `table` lays them out where they fit; in a narrower terminal the second column
 * is wrapped between words within its own column (its next lines indented under it), or, when too little room is
 * left beside the first, put under it, indented.
 */
export function fittedTable(rows: ReadonlyArray<readonly [string, string]>, columns: number): string {
  const width = Math.max(1, columns - 1);
  const first = Math.max(0, ...rows.map(([name]) => textWidth(name)));
  const room = width - first - 2;
  const lines = rows.flatMap(([name, what]) => {
    if (!Number.isFinite(width) || first + 2 + textWidth(what) <= width)
      return [`${name}${' '.repeat(first - textWidth(name))}  ${what}`.trimEnd()];
    if (room >= MIN_BESIDE) {
      const [head = '', ...rest] = wrapText(what, room);
      return [
        `${name}${' '.repeat(first - textWidth(name))}  ${head}`,
        ...rest.map((l) => `${' '.repeat(first + 2)}${l}`),
      ];
    }
    // Indented under it where there is room to spare for that.
    const indent = ' '.repeat(width >= 12 ? 4 : 0);
    return [fitWidth(name, width), ...wrapText(what, width - indent.length).map((l) => `${indent}${l}`)];
  });
  return `${lines.join('\n')}\n`;
}

/**
 * `text` broken between words into rows of at most `width` columns (a word wider than a row is cut into pieces). For
 * text laid out here: `wrapWords` of `@birdie/terminal` is for text streamed to a terminal that wraps it itself.
 */
export function wrapText(text: string, width: number): string[] {
  const rows: string[] = [];
  let row = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    let rest = word;
    while (textWidth(rest) > width) {
      if (row) rows.push(row);
      const piece = cutTo(rest, width);
      rows.push(piece);
      rest = rest.slice(piece.length);
      row = '';
    }
    if (!rest) continue;
    if (row && textWidth(row) + 1 + textWidth(rest) <= width) row += ` ${rest}`;
    else {
      if (row) rows.push(row);
      row = rest;
    }
  }
  if (row || rows.length === 0) rows.push(row);
  return rows;
}

/** The longest start of `text` that is at most `width` columns (at least one character). */
function cutTo(text: string, width: number): string {
  let out = '';
  for (const char of text) {
    if (out && textWidth(out + char) > width) break;
    out += char;
  }
  return out;
}
