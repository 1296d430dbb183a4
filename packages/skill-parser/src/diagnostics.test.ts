import { describe, expect, it } from 'vitest';
import { guard } from './diagnostics.js';

describe('guard', () => {
  it('turns anything thrown while parsing into one parse-failed error of that file', () => {
    const result = guard('/s/x/SKILL.md', () => {
      throw new RangeError('Maximum call stack size exceeded\n    at somewhere');
    });
    expect('skill' in result).toBe(false);
    expect(result.messages.map((m) => [m.ruleId, m.fatal, m.line, m.column, m.file, m.source])).toEqual([
      ['parse-failed', true, 1, 1, '/s/x/SKILL.md', 'skill-parser'],
    ]);
    expect(result.messages[0]!.reason).toBe(
      'Parsing failed unexpectedly (RangeError: Maximum call stack size exceeded)',
    );
    expect(result.messages[0]!.cause).toBeInstanceOf(RangeError);
  });

  it('passes a result through untouched', () => {
    const result = { messages: [] };
    expect(guard('/s/x/SKILL.md', () => result)).toBe(result);
  });
});
