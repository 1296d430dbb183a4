import { stripVTControlCharacters } from 'node:util';

/**
 * The last lines of a running tool's output, kept as it arrives: complete lines and the line being written. A
 * carriage return rewrites the line (progress bars); escape sequences and control characters are dropped, since the
 * output is the tool's and must not move the cursor or recolour the terminal.
 */
export class LastLines {
  #lines: string[] = [];
  #partial = '';

  constructor(private readonly keep: number) {}

  push(text: string): void {
    const parts = (this.#partial + text).split('\n');
    this.#partial = parts.pop() ?? '';
    // A line longer than any terminal keeps only its start: it is cut to the width when drawn anyway.
    if (this.#partial.length > 4096) this.#partial = this.#partial.slice(-4096);
    for (const line of parts.slice(-this.keep)) this.#lines.push(line);
    if (this.#lines.length > this.keep) this.#lines = this.#lines.slice(-this.keep);
  }

  /** Up to `count` lines, oldest first, cleaned for the screen. */
  last(count: number): string[] {
    const all = this.#partial ? [...this.#lines, this.#partial] : this.#lines;
    return all.slice(-count).map(screenText);
  }
}

/** A line as the terminal should show it: what follows its last carriage return, without escapes or controls. */
export function screenText(line: string): string {
  const shown = line.replace(/\r+$/, '');
  const cr = shown.lastIndexOf('\r');
  return stripVTControlCharacters(cr >= 0 ? shown.slice(cr + 1) : shown)
    .replace(/\t/g, '  ')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}

const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f300}-\u{1f64f}\u{1f900}-\u{1faff}\u{20000}-\u{3fffd}]/u;
const ZERO = /^(?:[\u0300-\u036f]|[\u200b-\u200f]|[\u20d0-\u20ff]|[\ufe00-\ufe0f])$/u;

/** Columns a character takes: 2 for wide (CJK, most emoji), 0 for combining marks and joiners, else 1. */
function columnsOf(char: string): number {
  if (ZERO.test(char)) return 0;
  return WIDE.test(char) ? 2 : 1;
}

/** Cuts `text` to at most `width` columns, ending in `…` when cut, so a line never wraps. */
export function fitWidth(text: string, width: number): string {
  let used = 0;
  let out = '';
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const w = columnsOf(chars[i]!);
    if (used + w > width) {
      // Room for the ellipsis: drop characters until one column is free.
      while (out && used + 1 > width) {
        const last = [...out].pop()!;
        out = out.slice(0, out.length - last.length);
        used -= columnsOf(last);
      }
      return width > 0 ? `${out}…` : '';
    }
    out += chars[i];
    used += w;
  }
  return out;
}
