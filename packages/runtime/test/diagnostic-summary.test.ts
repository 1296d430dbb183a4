import { describe, expect, it } from 'vitest';
import { severityOf, sortDiagnostics, summarize } from '../src/diagnostic-summary.js';

const at = (file: string, line: number, column: number, fatal?: boolean) => ({
  file,
  line,
  column,
  reason: `${file}:${line}:${column}`,
  ...(fatal === undefined ? {} : { fatal }),
});

describe('a check report in numbers and order', () => {
  it('reads fatal as an error, false as a warning, unset as info', () => {
    expect(severityOf(at('a', 1, 1, true))).toBe('error');
    expect(severityOf(at('a', 1, 1, false))).toBe('warning');
    expect(severityOf(at('a', 1, 1))).toBe('info');
    expect(severityOf({ reason: 'x', fatal: null })).toBe('info');
  });

  it('counts each severity', () => {
    const messages = [at('a', 1, 1, true), at('a', 2, 1, false), at('b', 1, 1, false), at('c', 1, 1)];
    expect(summarize(messages)).toEqual({ errors: 1, warnings: 2, infos: 1 });
    expect(summarize([])).toEqual({ errors: 0, warnings: 0, infos: 0 });
  });

  it('sorts by file, line and column without changing the list it is given', () => {
    const messages = [at('b', 1, 1), at('a', 2, 5), at('a', 2, 1), at('a', 1, 9)];
    expect(sortDiagnostics(messages).map((m) => m.reason)).toEqual(['a:1:9', 'a:2:1', 'a:2:5', 'b:1:1']);
    expect(messages[0]!.reason).toBe('b:1:1');
  });
});
