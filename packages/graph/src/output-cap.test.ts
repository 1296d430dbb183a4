import { describe, expect, it } from 'vitest';
import { capOutput } from './output-cap.js';

describe('capOutput', () => {
  it('keeps short output and cuts long output with a count of what was dropped', () => {
    expect(capOutput('abc', 3)).toEqual({ text: 'abc', truncated: false });
    expect(capOutput('a'.repeat(50), 10)).toEqual({
      text: `${'a'.repeat(10)}\n[truncated: 40 more characters]`,
      truncated: true,
    });
  });
});
