import { stripVTControlCharacters } from 'node:util';

/**
 * Columns a code point takes in a terminal: 2 for East Asian wide and fullwidth characters and most emoji, 0 for
 * combining marks, zero-width spaces and joiners and variation selectors, 1 otherwise. An approximation of wcwidth
 * good enough for wrapping and cutting lines (the Markdown renderer and the REPL's live tool output share it).
 */
export function charWidth(codePoint: number): number {
  if (
    (codePoint >= 0x300 && codePoint <= 0x36f) ||
    (codePoint >= 0x200b && codePoint <= 0x200f) ||
    (codePoint >= 0x20d0 && codePoint <= 0x20ff) ||
    (codePoint >= 0xfe00 && codePoint <= 0xfe0f)
  )
    return 0;
  if (
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1faff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd)
  )
    return 2;
  return 1;
}

/** Columns a string takes on screen: escape sequences take none. */
export function textWidth(text: string): number {
  let width = 0;
  for (const char of stripVTControlCharacters(text)) width += charWidth(char.codePointAt(0)!);
  return width;
}

/** Rows a text takes when written from the start of a row into a terminal `width` columns wide (which wraps). */
export function rowsOf(text: string, width: number): number {
  const lines = text.split('\n');
  let rows = 0;
  for (const line of lines) rows += Math.max(1, Math.ceil(textWidth(line) / Math.max(1, width)));
  return rows;
}
