import type { Values } from '../argv.js';
import { EXIT_OK, type Io, write } from '../io.js';
import { styler, table } from '@birdie/terminal/style';
import { visible } from '@birdie/terminal/terminal-text';

/** How a list command shows its items: the table's header and one row per item, and what it says when empty. */
export interface ListShape<T> {
  header: string[];
  row(item: T): string[];
  /** The lines written when there is nothing to list. */
  empty?: string | string[];
  /** The header as it is, not bold (a list that never styled it). */
  plainHeader?: boolean;
}

/**
 * The end of a list command: one JSON object per item with `--json`, else the `empty` lines when there is none, else
 * a table. Exit 0. A cell is data (a skill's name from a cloned folder, a session's title), so its control characters
 * are pictured, never sent to the terminal.
 */
export function printList<T>(io: Io, values: Values, items: readonly T[], shape: ListShape<T>): number {
  if (values.json) {
    for (const item of items) write(io.stdout, JSON.stringify(item));
    return EXIT_OK;
  }
  if (items.length === 0 && shape.empty !== undefined) {
    for (const line of [shape.empty].flat()) write(io.stdout, line);
    return EXIT_OK;
  }
  const style = styler(io.stdout, io.env);
  const header = shape.plainHeader ? shape.header : shape.header.map((h) => style('bold', h));
  io.stdout.write(
    table(
      items.map((item) => shape.row(item).map(visible)),
      header,
    ),
  );
  return EXIT_OK;
}
