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
