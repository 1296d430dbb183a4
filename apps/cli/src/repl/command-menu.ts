// The `/` menu under the REPL's input: one row per command (usage, then what it does), fitted to the terminal.
import { fitWidth } from '@birdie/terminal/live-lines';
import type { Style } from '@birdie/terminal/style';
import { textWidth } from '@birdie/terminal/text-width';

/** Below this many columns for the descriptions, the menu lists the commands alone. */
const MIN_DESCRIPTION = 12;

/**
 * The menu's rows: each command's usage padded to a common column, then its description cut to the row (one column
 * left free, so no row reaches the terminal's edge); at most `free` rows, the last of them counting what is left out
 * when the commands do not all fit (typing narrows the menu).
 */
export function menuRows(
  menu: ReadonlyArray<readonly [string, string]>,
  columns: number,
  free: number,
  style: Style,
): string[] {
  const width = Math.max(1, columns - 1);
  const indent = '  ';
  const usageWidth = Math.min(
    Math.max(...menu.map(([usage]) => textWidth(usage))),
    Math.max(1, width - indent.length),
  );
  const room = width - indent.length - usageWidth - 2;
  const rows = menu.map(([usage, what]) => {
    const shown = fitWidth(usage, usageWidth);
    if (room < MIN_DESCRIPTION) return `${indent}${shown}`;
    const pad = ' '.repeat(usageWidth - textWidth(shown));
    return `${indent}${shown}${pad}  ${style('dim', fitWidth(what, room))}`;
  });
  return fitRows(rows, free, (left) => `${indent}${style('dim', `… ${left} more: type to narrow`)}`);
}

/** `rows` cut to `free` rows (at least one), the last one saying how many were left out. */
export function fitRows(
  rows: readonly string[],
  free: number,
  more: (left: number) => string = (left) => `… ${left} more`,
): string[] {
  const room = Math.max(1, free);
  if (rows.length <= room) return [...rows];
  const kept = Math.max(0, room - 1);
  return [...rows.slice(0, kept), more(rows.length - kept)];
}
