export type JsonParseResult =
  | { ok: true; value: unknown }
  | { ok: false; reason: string; offset: number; line: number; column: number };

/**
 * JSON.parse, but a failure says where (1-based line and column) and why, without echoing the text:
 * V8's own messages quote the source, which may hold an API key.
 */
export function parseJson(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    const { offset, reason } = locateJsonError(text);
    const { line, column } = lineColumn(text, offset);
    return { ok: false, reason, offset, line, column };
  }
}

export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** A small validating scanner, run only after JSON.parse failed, to find the first offending character. */
function locateJsonError(text: string): { offset: number; reason: string } {
  let i = 0;
  const fail = (reason: string): never => {
    throw new JsonSyntaxError(i, i >= text.length ? 'unexpected end of input' : reason);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail(`invalid literal, expected "${word}"`);
      i++;
    }
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      const ch = text[i]!;
      if (ch < ' ') fail('control character in string');
      if (ch === '\\') {
        i++;
        if (text[i] === 'u') {
          for (let k = 1; k <= 4; k++) if (!/[0-9a-fA-F]/.test(text[i + k] ?? '')) fail('invalid \\u escape');
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail('invalid escape in string');
      }
      i++;
    }
    if (i >= text.length) fail('unterminated string');
    i++;
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match || match[0] === '-') fail('invalid number');
    i += match![0].length;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{') object();
    else if (ch === '[') array();
    else if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) number();
    else fail(`unexpected character ${JSON.stringify(ch)}, expected a value`);
  };
  const object = () => {
    i++;
    ws();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      ws();
      if (text[i] !== '"') fail('expected a double-quoted property name');
      string();
      ws();
      if (text[i] !== ':') fail("expected ':' after property name");
      i++;
      value();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return;
      }
      fail("expected ',' or '}' after property value");
    }
  };
  const array = () => {
    i++;
    ws();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (;;) {
      value();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return;
      }
      fail("expected ',' or ']' after array element");
    }
  };
  try {
    value();
    ws();
    if (i < text.length) fail('unexpected content after the JSON value');
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { offset: error.offset, reason: error.reason };
    throw error;
  }
  // JSON.parse rejected what the scanner accepts (e.g. a lone surrogate edge case): report the start.
  return { offset: 0, reason: 'invalid JSON' };
}
