import type { ApprovalRequest } from '@birdie/graph';
import { describe, expect, it } from 'vitest';
import { ApprovalBatch } from './approval-batch.js';

const call = (id: string, tool: string, command?: string): ApprovalRequest =>
  ({
    id,
    tool,
    args: command === undefined ? {} : { command },
    raw: command !== undefined,
    description: tool,
  }) as unknown as ApprovalRequest;

// The first pattern loads @birdie/graph's rule engine: slow on a loaded machine.
describe('the approvals of one batch', { timeout: 60_000 }, () => {
  it('a tool allowed for the session covers its later calls; other tools are still asked', async () => {
    const batch = new ApprovalBatch();
    expect(await batch.covered(call('1', 'read_file'))).toBeUndefined();
    expect(batch.allowTool('read_file')).toEqual({ type: 'approve', scope: 'session' });
    expect(await batch.covered(call('2', 'read_file'))).toEqual({
      decision: { type: 'approve', scope: 'session' },
      by: 'read_file',
    });
    expect(await batch.covered(call('3', 'write_file'))).toBeUndefined();
  });

  it('a command pattern covers the commands it matches, and only those', async () => {
    const batch = new ApprovalBatch();
    const pattern = 'run_bash(git log *)';
    expect(batch.allowPattern(pattern)).toEqual({ type: 'approve', scope: 'session', pattern });
    expect(await batch.covered(call('1', 'run_bash', 'git log -3'))).toEqual({
      decision: { type: 'approve', scope: 'session', pattern },
      by: pattern,
    });
    expect(await batch.covered(call('2', 'run_bash', 'rm -rf /'))).toBeUndefined();
  });
});
