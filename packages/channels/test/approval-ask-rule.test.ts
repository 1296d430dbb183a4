import type { ApprovalRequest } from '@birdie/graph';
import { describe, expect, it } from 'vitest';
import { approvalButtons, pressedDecision } from '../src/index.js';

// Sibling of the MCP and ACP fixes: a question one of the user's ask rules makes offered "For this session", a grant
// that can never answer such a call (an ask rule asks every time).

const request = (reason: ApprovalRequest['reason']): ApprovalRequest => ({
  id: 'call-1',
  digest: 'd'.repeat(64),
  tool: 'write_file',
  skill: 'filesystem',
  args: { path: '.github/ci.yml', content: 'x' },
  description: 'filesystem › write_file({"path":".github/ci.yml","content":"x"})',
  reason,
});

describe('a chat question an ask rule makes', () => {
  it('offers Approve and Reject only; a press of "For this session" approves nothing for the session', () => {
    const asked = request('rule');
    expect(
      approvalButtons(asked)
        .flat()
        .map((b) => b.text),
    ).toEqual(['Approve', 'Reject']);
    const approve = approvalButtons(asked).flat()[0]!.data;
    expect(pressedDecision(approve.replace('ap:a:', 'ap:s:'), [asked])).toBeUndefined();
    expect(pressedDecision(approve, [asked])?.decision).toEqual({ type: 'approve', scope: 'once' });
  });

  it('a call asked for another reason still offers the session', () => {
    expect(
      approvalButtons(request('file-change'))
        .flat()
        .map((b) => b.text),
    ).toEqual(['Approve', 'For this session', 'Reject']);
  });
});
