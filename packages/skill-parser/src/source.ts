/** A SKILL.md text with a line index, so that any offset maps to an exact `line:column`. */
export interface Source {
  /** The text without a leading BOM (line endings untouched: CRLF stays, positions stay exact). */
  text: string;
  /** Offset of the first character of each line. */
  lineStarts: number[];
}

export interface Point {
  line: number;
  column: number;
  offset: number;
}

export function createSource(raw: string): Source {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  const lineStarts = [0];
  let index = text.indexOf('\n');
  while (index !== -1) {
    lineStarts.push(index + 1);
    index = text.indexOf('\n', index + 1);
  }
  return { text, lineStarts };
}

export function pointAt(source: Source, offset: number): Point {
  const starts = source.lineStarts;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: offset - starts[low]! + 1, offset };
}

/** End of the line that contains `offset` (before `\r\n` / `\n`). */
export function lineEnd(text: string, offset: number): number {
  let end = text.indexOf('\n', offset);
  if (end === -1) end = text.length;
  if (end > offset && text.charCodeAt(end - 1) === 13) end--;
  return end;
}

/** Offset of the line after the one containing `offset` (or the text length). */
export function nextLine(text: string, offset: number): number {
  const end = text.indexOf('\n', offset);
  return end === -1 ? text.length : end + 1;
}

/** Trims and turns CRLF into LF, for prose handed to a model. */
export function cleanProse(text: string): string {
  return (text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text).trim();
}
