/** Special writes get fixed negative indexes so a retry replaces them (LangGraph's WRITES_IDX_MAP). */
export const SPECIAL_WRITE_INDEX: Readonly<Record<string, number>> = {
  __error__: -1,
  __scheduled__: -2,
  __interrupt__: -3,
  __resume__: -4,
};

export interface StoredWrite {
  taskId: string;
  taskPath: string;
  idx: number;
  channel: string;
  value: unknown;
}

/**
 * The order live execution applies one superstep's writes in: task path, task id, index,
 * strings by code point (not UTF-16 units, not locale).
 */
export function compareWrites(a: StoredWrite, b: StoredWrite): number {
  return byCodePoint(a.taskPath, b.taskPath) || byCodePoint(a.taskId, b.taskId) || a.idx - b.idx;
}

function byCodePoint(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(j)!;
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return i >= a.length ? (j >= b.length ? 0 : -1) : 1;
}
