import { stripVTControlCharacters } from 'node:util';
import type { Style } from './style.js';

/** How a line of the approval box is coloured (when the terminal takes colours). */
export type Tone = 'green' | 'red' | 'cyan' | 'dim' | 'yellow';

export interface ToneLine {
  text: string;
  tone?: Tone;
}

/** What the question shows above its choices: a title and the call (its description, arguments or diff). */
export interface ApprovalBox {
  title: string;
  lines: ToneLine[];
}

/**
 * The box drawn at `width` columns: `◇ title ───` ruled to the width, then each line behind a `│`, cut into pieces
 * that fit (never wider than `width - 1`, so a terminal never wraps it itself); at most `maxLines` body lines, the rest
 * counted. Drawn again at the new width when the terminal is resized.
 */
export function boxLines(
  box: ApprovalBox,
  style: Style,
  width: number,
  maxLines: number,
  /** Said after the count of the lines left out (where the user can read them). */
  moreNote = '',
): string[] {
  // One column is left free: a line that fills the last column makes some terminals wrap the cursor early.
  const inner = Math.max(10, width - 3);
  const title = fit(box.title, Math.max(10, width - 5));
  const rule = '─'.repeat(Math.max(1, width - 4 - title.length));
  const body = box.lines.flatMap((line) =>
    pieces(line.text, inner).map((text) => (line.tone ? style(line.tone, text) : text)),
  );
  const shown =
    body.length > maxLines
      ? [
          ...body.slice(0, maxLines - 1),
          style('dim', `… ${body.length - maxLines + 1} more lines${moreNote}`),
        ]
      : body;
  return [
    `${style('green', '◇')} ${style('bold', title)} ${style('dim', rule)}`,
    ...shown.map((line) => `${style('dim', '│')} ${line}`),
    style('dim', '│'),
  ];
}

/**
 * A line cut into pieces of at most `width` characters, after a space where one is in the second half of the piece
 * (prose stays readable), else at the width (long paths, code). An empty line stays one empty piece.
 */
function pieces(text: string, width: number): string[] {
  const chars = [...text];
  if (chars.length === 0) return [''];
  const out: string[] = [];
  let start = 0;
  while (chars.length - start > width) {
    // The space a piece breaks at is dropped: it may sit just past the width.
    const space = chars.lastIndexOf(' ', start + width);
    const breaks = space >= start + width / 2;
    const end = breaks ? space : start + width;
    out.push(chars.slice(start, end).join(''));
    start = breaks ? space + 1 : end;
  }
  out.push(chars.slice(start).join(''));
  return out;
}

function fit(text: string, width: number): string {
  const plain = [...stripVTControlCharacters(text)];
  return plain.length > width ? `${plain.slice(0, width - 1).join('')}…` : plain.join('');
}
