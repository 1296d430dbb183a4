import { describe, expect, it } from 'vitest';
import { progressLine } from './mcp-progress.js';

describe('MCP progress as live output', () => {
  it('says how far along a call is, with the server’s message when it sends one', () => {
    expect(progressLine({ progress: 2, total: 5 })).toBe('progress 2 of 5\n');
    expect(progressLine({ progress: 40 })).toBe('progress 40\n');
    expect(progressLine({ progress: 1, total: 3, message: 'indexing\n  src/ ' })).toBe(
      'indexing src/ (1 of 3)\n',
    );
  });
});
