import type { AlignType } from 'mdast';
import type { Style } from '../style.js';
import { textWidth } from '../text-width.js';
import { wrapStyled } from './wrap.js';

const SEPARATOR = ' │ ';

/**
 * A table laid out for a terminal `width` columns wide: columns as wide as their widest cell, header bold and
 * underlined by a rule, cells aligned as the delimiter row says. When the columns do not fit, the widest ones are
 * narrowed (each keeps at least what a fair share allows) and their cells wrap between words onto more lines.
 */
export function layoutTable(
  rows: readonly (readonly string[])[],
  align: readonly (AlignType | undefined)[],
  width: number,
  style: Style,
): string {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  if (columns === 0) return '';
  const cells = rows.map((row) =>
    Array.from({ length: columns }, (_, i) => (row[i] ?? '').replace(/\n/g, ' ')),
  );
  const natural = Array.from({ length: columns }, (_, i) =>
    Math.max(1, ...cells.map((row) => textWidth(row[i]!))),
  );
  const widths = fit(natural, width - SEPARATOR.length * (columns - 1));
  const lines: string[] = [];
  cells.forEach((row, r) => {
    const wrapped = row.map((cell, i) => wrapStyled(r === 0 ? style('bold', cell) : cell, widths[i]!));
    const height = Math.max(...wrapped.map((cell) => cell.length));
    for (let line = 0; line < height; line++) {
      const parts = wrapped.map((cell, i) => pad(cell[line] ?? '', widths[i]!, align[i]));
      lines.push(parts.join(style('dim', SEPARATOR)).trimEnd());
    }
    if (r === 0) lines.push(style('dim', widths.map((w) => '─'.repeat(w)).join('─┼─')));
  });
  return lines.join('\n');
}

/** Column widths that fit `available`: columns narrower than a fair share keep their width, the rest share. */
export function fit(natural: readonly number[], available: number): number[] {
  const total = natural.reduce((a, b) => a + b, 0);
  if (total <= available) return [...natural];
  const widths = [...natural];
  const open = new Set(natural.map((_, i) => i));
  let left = Math.max(available, natural.length);
  for (;;) {
    const share = Math.floor(left / open.size);
    const small = [...open].filter((i) => natural[i]! <= share);
    if (small.length === 0) {
      let extra = left - share * open.size;
      for (const i of open) {
        widths[i] = Math.max(1, share + (extra-- > 0 ? 1 : 0));
      }
      return widths;
    }
    for (const i of small) {
      open.delete(i);
      left -= natural[i]!;
    }
    if (open.size === 0) return widths;
  }
}

function pad(text: string, width: number, align: AlignType | undefined): string {
  const room = Math.max(0, width - textWidth(text));
  if (align === 'right') return ' '.repeat(room) + text;
  if (align === 'center') return ' '.repeat(Math.floor(room / 2)) + text + ' '.repeat(Math.ceil(room / 2));
  return text + ' '.repeat(room);
}
