import { charWidth } from '../text-width.js';

// SGR parameters that end a style, and the openers each of them ends (styleText closes with these, not with 0).
const CLOSERS: Record<string, (open: number) => boolean> = {
  '22': (n) => n === 1 || n === 2,
  '23': (n) => n === 3,
  '24': (n) => n === 4,
  '27': (n) => n === 7,
  '29': (n) => n === 9,
  '39': (n) => (n >= 30 && n <= 38) || (n >= 90 && n <= 97),
  '49': (n) => (n >= 40 && n <= 48) || (n >= 100 && n <= 107),
};
const PIECES = /(\x1b\[[0-9;]*m)|( +)|([^ \x1b]+)|(\x1b)/g;

/**
 * Wraps one styled line (no `\n`) into lines of at most `width` columns, breaking between words. Styles open at a
 * break are closed at the end of the line and opened again on the next, so padding, borders and prefixes added
 * around a line never take a color that belongs to its text. A word longer than the width is cut.
 */
export function wrapStyled(line: string, width: number): string[] {
  const max = Math.max(1, width);
  const lines: string[] = [];
  let active: string[] = [];
  let current = '';
  let column = 0;
  let spaces = '';
  /** Openers met after spaces: written with the next word, after the spaces (which stay unstyled). */
  const opening: string[] = [];
  const apply = (sequence: string) => {
    current += sequence;
    const params = sequence.slice(2, -1);
    const closer = CLOSERS[params];
    if (params === '0' || params === '') active = [];
    else if (closer) {
      const i = active.findLastIndex((code) => closer(Number(code.slice(2, -1).split(';')[0])));
      if (i >= 0) active.splice(i, 1);
    } else active.push(sequence);
  };
  const breakLine = () => {
    lines.push(current + (active.length ? '\x1b[0m' : ''));
    current = active.join('');
    column = 0;
    spaces = '';
  };
  const addWord = (word: string) => {
    const chars = [...word];
    const wordWidth = chars.reduce((w, c) => w + charWidth(c.codePointAt(0)!), 0);
    if (column > 0 && column + spaces.length + wordWidth > max) breakLine();
    else {
      current += spaces;
      column += spaces.length;
    }
    spaces = '';
    for (const sequence of opening.splice(0)) apply(sequence);
    for (const char of chars) {
      const w = charWidth(char.codePointAt(0)!);
      if (column + w > max && column > 0) breakLine();
      current += char;
      column += w;
    }
  };
  for (const match of line.matchAll(PIECES)) {
    const [, sequence, blank, word, lone] = match;
    if (sequence) {
      const params = sequence.slice(2, -1);
      if (spaces && !CLOSERS[params] && params !== '0' && params !== '') opening.push(sequence);
      else apply(sequence);
    } else if (blank) spaces += blank;
    else addWord((word ?? lone)!);
  }
  for (const sequence of opening) apply(sequence);
  lines.push(current);
  return lines;
}
