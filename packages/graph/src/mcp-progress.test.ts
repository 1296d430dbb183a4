import { describe, expect, it } from 'vitest';
import { progressHooks, progressLine } from './mcp-progress.js';

describe('MCP progress as live output', () => {
  it('says how far along a call is, with the server’s message when it sends one', () => {
    expect(progressLine({ progress: 2, total: 5 })).toBe('progress 2 of 5\n');
    expect(progressLine({ progress: 40 })).toBe('progress 40\n');
    expect(progressLine({ progress: 1, total: 3, message: 'indexing\n  src/ ' })).toBe(
      'indexing src/ (1 of 3)\n',
    );
  });

  it('reaches only the call whose arguments object the notification names', () => {
    const heard: string[] = [];
    const mine = { path: 'a' };
    const other = { path: 'a' }; // equal, not the same call
    progressHooks.beforeToolCall(
      { args: mine },
      {},
      { configurable: { birdie_mcp_output: (c: { text: string }) => heard.push(c.text) } },
    );
    progressHooks.onProgress({ progress: 1, total: 2 }, { type: 'tool', args: mine });
    progressHooks.onProgress({ progress: 9 }, { type: 'tool', args: other });
    progressHooks.onProgress({ progress: 9 }, { type: 'unknown' });
    expect(heard).toEqual(['progress 1 of 2\n']);
  });
});
