import { stripVTControlCharacters } from 'node:util';
import { charWidth } from './text-width.js';

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

/** Cuts `text` to at most `width` columns, ending in `…` when cut, so a line never wraps. */
export function fitWidth(text: string, width: number): string {
  let used = 0;
  let out = '';
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const w = charWidth(chars[i]!.codePointAt(0)!);
    if (used + w > width) {
      // Room for the ellipsis: drop characters until one column is free.
      while (out && used + 1 > width) {
        const last = [...out].pop()!;
        out = out.slice(0, out.length - last.length);
        used -= charWidth(last.codePointAt(0)!);
      }
      return width > 0 ? `${out}…` : '';
    }
    out += chars[i];
    used += w;
  }
  return out;
}
