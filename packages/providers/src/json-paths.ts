import { lineColumn } from './json-position.js';

export type JsonPath = ReadonlyArray<string | number>;

export interface JsonPlace {
  line: number;
  column: number;
}

interface Offsets {
  /** Where the member's key starts (object members only). */
  key?: number;
  value: number;
}

/**
 * Where each key and value of a (valid) JSON text is, so a schema problem found on the parsed value can be reported
 * at its line and column. `placeOf(path)` points at the member's key (a value has no better place for "unknown
 * field"), at the value for array items, or at the closest enclosing member the text has.
 */
export function jsonPlaces(text: string): (path: JsonPath) => JsonPlace {
  const offsets = scan(text);
  return (path) => {
    for (let length = path.length; length >= 0; length--) {
      const found = offsets.get(keyOf(path.slice(0, length)));
      if (found) return lineColumn(text, found.key ?? found.value);
    }
    return { line: 1, column: 1 };
  };
}

const keyOf = (path: JsonPath) => JSON.stringify(path);

/** One pass over text that JSON.parse accepted; records every member and item by path. */
function scan(text: string): Map<string, Offsets> {
  const offsets = new Map<string, Offsets>();
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: Array<string | number>, key?: number): void => {
    ws();
    offsets.set(keyOf(path), key === undefined ? { value: i } : { key, value: i });
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const keyStart = i;
        const name = string();
        ws();
        i++; // ':'
        value([...path, name], keyStart);
        ws();
        if (text[i++] === '}') return;
      }
    }
    if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let index = 0; ; index++) {
        value([...path, index]);
        ws();
        if (text[i++] === ']') return;
      }
    }
    if (ch === '"') {
      string();
      return;
    }
    while (i < text.length && !',]} \t\n\r'.includes(text[i]!)) i++;
  };
  value([]);
  return offsets;
}
