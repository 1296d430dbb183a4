import type { ApprovalRequest } from '@birdie/graph';
import { describe, expect, it } from 'vitest';
import {
  type ApprovalAnswer,
  approvalOffer,
  decideApprovals,
  editedArgsProblem,
} from './approval-answers.js';

const request = (
  id: string,
  tool: string,
  args: Record<string, unknown> = {},
  raw = false,
): ApprovalRequest =>
  ({ id, tool, args, description: tool, ...(raw ? { raw: true } : {}) }) as ApprovalRequest;

const answering = (...answers: ApprovalAnswer[]) => {
  const asked: string[] = [];
  return {
    asked,
    ask: async (r: ApprovalRequest) => {
      asked.push(r.id);
      return answers.shift() ?? { kind: 'once' };
    },
  };
};

describe('approval answers', () => {
  it('turns each answer into its decision', async () => {
    const { ask } = answering(
      { kind: 'once' },
      { kind: 'reject', message: 'not now' },
      { kind: 'reject' },
      { kind: 'edit', args: { path: 'b' } },
      { kind: 'edit' },
    );
    const requests = ['a', 'b', 'c', 'd', 'e'].map((id) => request(id, `t_${id}`));
    const { decisions, cancelled } = await decideApprovals(requests, ask);
    expect(cancelled).toBe(false);
    expect(decisions).toEqual({
      a: { type: 'approve' },
      b: { type: 'reject', message: 'not now' },
      c: { type: 'reject' },
      d: { type: 'edit', args: { path: 'b' } },
      e: { type: 'reject', message: 'The user cancelled the edit.' },
    });
  });

  it('does not ask again about a call that a session approval of the batch covers', async () => {
    const { ask, asked } = answering(
      { kind: 'session' },
      { kind: 'pattern', pattern: 'run_bash(npm test *)' },
    );
    const covered: string[] = [];
    const { decisions } = await decideApprovals(
      [
        request('1', 'read_file'),
        request('2', 'read_file'),
        request('3', 'run_bash', { command: 'npm test a' }, true),
        request('4', 'run_bash', { command: 'npm test b' }, true),
        request('5', 'run_bash', { command: 'rm -rf x' }, true),
      ],
      ask,
      (by) => covered.push(by),
    );
    expect(asked).toEqual(['1', '3', '5']);
    expect(covered).toEqual(['read_file', 'run_bash(npm test *)']);
    expect(decisions['2']).toEqual({ type: 'approve', scope: 'session' });
    expect(decisions['4']).toEqual({ type: 'approve', scope: 'session', pattern: 'run_bash(npm test *)' });
    expect(decisions['5']).toEqual({ type: 'approve' });
  });

  it('asks about a call an ask rule asks about, whatever the batch\'s session approvals cover (the REPL\'s "always")', async () => {
    const { ask, asked } = answering(
      { kind: 'session' },
      { kind: 'pattern', pattern: 'run_bash(git *)' },
      { kind: 'reject' },
      { kind: 'reject' },
    );
    const ruled = (id: string, tool: string, args: Record<string, unknown>, raw = false) => ({
      ...request(id, tool, args, raw),
      reason: 'rule' as const,
      rule: { pattern: `${tool}(…)`, effect: 'ask' as const, source: { kind: 'user' as const } },
    });
    const covered: string[] = [];
    const { decisions } = await decideApprovals(
      [
        request('1', 'write_file', { path: 'notes.txt' }),
        request('2', 'run_bash', { command: 'git status' }, true),
        ruled('3', 'write_file', { path: '.github/ci.yml' }),
        ruled('4', 'run_bash', { command: 'git push origin main' }, true),
      ],
      ask,
      (by) => covered.push(by),
    );
    expect(asked).toEqual(['1', '2', '3', '4']);
    expect(covered).toEqual([]);
    expect(decisions['3']).toEqual({ type: 'reject' });
    expect(decisions['4']).toEqual({ type: 'reject' });
  });

  it('a cancel rejects every call not decided yet and says the turn is cancelled', async () => {
    const { ask, asked } = answering({ kind: 'once' }, { kind: 'cancel' });
    const { decisions, cancelled } = await decideApprovals(
      [request('1', 'a'), request('2', 'b'), request('3', 'c')],
      ask,
    );
    expect(cancelled).toBe(true);
    expect(asked).toEqual(['1', '2']);
    expect(decisions).toEqual({
      '1': { type: 'approve' },
      '2': { type: 'reject', message: 'The user cancelled the turn.' },
      '3': { type: 'reject', message: 'The user cancelled the turn.' },
    });
  });

  it('offers a command pattern for a plain shell command only', async () => {
    expect(await approvalOffer(request('1', 'run_bash', { command: 'npm test' }, true))).toEqual({
      shell: true,
      prefixPattern: 'run_bash(npm test *)',
    });
    expect(await approvalOffer(request('2', 'run_bash', { command: 'eval "$X"' }, true))).toEqual({
      shell: true,
    });
    expect(await approvalOffer(request('3', 'read_file', { path: 'a' }))).toEqual({ shell: false });
  });

  it('offers no command pattern where no session rule could answer: under the mode always, at an ask rule', async () => {
    const asking = (reason: ApprovalRequest['reason']) =>
      ({ ...request('1', 'run_bash', { command: 'npm test' }, true), reason }) as ApprovalRequest;
    // An allow pattern never lifts the mode always, and no session approval answers an ask rule's question.
    expect(await approvalOffer(asking('mode-always'))).toEqual({ shell: true });
    expect(await approvalOffer(asking('rule'))).toEqual({ shell: true });
    expect(await approvalOffer(asking('raw-command'))).toEqual({
      shell: true,
      prefixPattern: 'run_bash(npm test *)',
    });
  });

  it("checks edited arguments as JSON objects against the tool's schema", () => {
    const withSchema = {
      ...request('1', 'read_file'),
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    } as ApprovalRequest;
    expect(editedArgsProblem(withSchema, '{')).toMatch(/^not JSON: /);
    expect(editedArgsProblem(withSchema, '[1]')).toBe('must be a JSON object');
    expect(editedArgsProblem(withSchema, '{}')).toMatch(/^Not valid for the tool:/);
    expect(editedArgsProblem(withSchema, '{"path":"a"}')).toBeUndefined();
    expect(editedArgsProblem(request('2', 'x'), '{"any":1}')).toBeUndefined();
  });
});
