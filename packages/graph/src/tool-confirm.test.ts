import { describe, expect, it } from 'vitest';
import { bindDecisions } from './approvals.js';
import { argsDigest } from './digest.js';
import { interruptAnswered } from './pending-answer.js';
import { confirmCalls } from './tool-confirm.js';
import type { PlannedCall } from './tool-plan.js';
import type { ApprovalRequest } from './types.js';

/** A planned call needing approval, as `planCalls` makes it (only the fields `confirmCalls` reads are real). */
function planned(id: string, command: string): PlannedCall {
  const digest = argsDigest('run_bash', { command });
  const request: ApprovalRequest = {
    id,
    digest,
    tool: 'run_bash',
    args: { command },
    description: command,
    reason: 'raw-command',
  };
  return { kind: 'run', id, name: 'run_bash', invocation: { digest } as never, request };
}

describe('confirmCalls', () => {
  it('applies a decision only to the call whose id and arguments the user saw', () => {
    const shown = planned('a', 'echo harmless');
    const given = bindDecisions([shown.kind === 'run' ? shown.request! : (undefined as never)], {
      a: { type: 'approve' },
    });
    // The same id, other arguments: the approval does not carry over, the call is asked about again.
    const swapped = planned('a', 'touch /tmp/PWNED');
    const asked: ApprovalRequest[][] = [];
    expect(() =>
      confirmCalls([swapped], given, (requests) => {
        asked.push(requests);
        throw new Error('interrupt');
      }),
    ).toThrow('interrupt');
    expect(asked.map((r) => r.map((q) => q.args))).toEqual([[{ command: 'touch /tmp/PWNED' }]]);
    expect(
      confirmCalls([shown], given, () => ({})).get({
        id: 'a',
        digest: argsDigest('run_bash', { command: 'echo harmless' }),
      }),
    ).toEqual({ type: 'approve' });
  });

  it('asks again, in a new round, when an answer matches no open call', () => {
    const call = planned('a', 'echo one');
    const rounds: string[] = [];
    const answers = [{ a: { type: 'approve' as const, digest: 'not-this-call' } }];
    expect(() =>
      confirmCalls([call], {}, (requests) => {
        rounds.push(requests.map((r) => r.id).join());
        const answer = answers.shift();
        if (!answer) throw new Error('interrupt');
        return answer;
      }),
    ).toThrow('interrupt');
    expect(rounds).toEqual(['a', 'a']);
  });

  it('keeps two calls that share an id apart by their digests', () => {
    const first = planned('dup', 'echo harmless');
    const second = planned('dup', 'touch /tmp/PWNED');
    const requests = [first, second].map((p) => (p.kind === 'run' ? p.request! : (undefined as never)));
    const answer = { ...bindDecisions([requests[0]!], { dup: { type: 'approve' } }) };
    const later = bindDecisions([requests[1]!], { dup: { type: 'reject' } });
    const replies = [answer, later];
    const book = confirmCalls([first, second], {}, () => replies.shift() ?? ({} as never));
    expect(book.get({ id: 'dup', digest: requests[0]!.digest })).toEqual({ type: 'approve' });
    expect(book.get({ id: 'dup', digest: requests[1]!.digest })).toEqual({ type: 'reject' });
  });
});

describe('interruptAnswered', () => {
  const NULL = '00000000-0000-0000-0000-000000000000';
  const v1 = { a: { type: 'approve', digest: 'd1' } };
  const v2 = { b: { type: 'approve', digest: 'd2' } };
  it('an open question with no answer is pending', () => {
    expect(interruptAnswered([['t', '__interrupt__', [{}]]])).toBe(false);
  });
  it('an answer recorded by a resume that stopped before the task finished is not pending any more', () => {
    expect(
      interruptAnswered([
        ['t', '__interrupt__', [{}]],
        [NULL, '__resume__', v1],
      ]),
    ).toBe(true);
  });
  it('a second round asked after the first answer is pending', () => {
    const writes: Array<[string, string, unknown]> = [
      [NULL, '__resume__', v1],
      ['t', '__resume__', [v1]],
      ['t', '__interrupt__', [{}]],
    ];
    expect(interruptAnswered(writes)).toBe(false);
    writes[0] = [NULL, '__resume__', v2];
    expect(interruptAnswered(writes)).toBe(true);
  });
});
