import type { ApprovalRequest } from '@birdie/graph';
import { describe, expect, it } from 'vitest';
import { approvalButtons, approvalText, pressedDecision } from '../src/index.js';

// Exploratory report (author) #1, its sibling in the chat channels: the approval message cut the arguments at 1500
// characters with "…" and still offered "Approve", which ran the part the user never saw.

const request = (command: string): ApprovalRequest => ({
  id: 'call-1',
  digest: 'd'.repeat(64),
  tool: 'run_command',
  skill: 'raw-shell',
  raw: true,
  args: { command },
  description: `Run shell command: ${command}`,
  reason: 'raw-command',
});

const labels = (r: ApprovalRequest) =>
  approvalButtons(r)
    .flat()
    .map((b) => b.text);

describe('a chat approval question shows the whole call, or cannot approve it', () => {
  it('a call that fits is shown whole, with every button', () => {
    const command = `echo ${'a'.repeat(800)}; echo TAIL`;
    expect(approvalText(request(command))).toContain(`${'a'.repeat(800)}; echo TAIL`);
    // A compound raw command: no pattern to offer for the session, and never the whole tool.
    expect(labels(request(command))).toEqual(['Approve', 'Reject']);
  });

  it('a call too long to show whole offers only Reject and says why; a press of Approve decides nothing', () => {
    const long = request(`echo ${'a'.repeat(3000)} > /dev/null; echo HIDDEN > pwned.txt`);
    const text = approvalText(long);
    expect(text).not.toContain('HIDDEN');
    expect(text).toMatch(/too long to show whole here/);
    expect(labels(long)).toEqual(['Reject']);
    // A button made for the call as if it could be approved (an older message, a forged press) decides nothing.
    const reject = approvalButtons(long).flat()[0]!.data;
    expect(pressedDecision(reject.replace('ap:r:', 'ap:a:'), [long])).toBeUndefined();
    expect(pressedDecision(reject.replace('ap:r:', 'ap:s:'), [long])).toBeUndefined();
    expect(pressedDecision(reject, [long])?.decision.type).toBe('reject');
  });
});
