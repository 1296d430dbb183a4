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

  it('counts what the entrypoint dropped before it too, or says the count is a minimum when it did not count', () => {
    expect(capOutput('a'.repeat(50), 10, { droppedBytes: 1000 }).text).toBe(
      `${'a'.repeat(10)}\n[truncated: about 1040 more characters]`,
    );
    expect(capOutput('a'.repeat(50), 10, {}).text).toBe(
      `${'a'.repeat(10)}\n[truncated: at least 40 more characters]`,
    );
  });
});
