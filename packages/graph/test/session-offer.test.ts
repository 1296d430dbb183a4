import { describe, expect, it } from 'vitest';
import { sessionOffer } from '../src/tool-approval.js';

const call = (
  reason: 'raw-command' | 'mode-always' | 'rule' | 'approval-required',
  raw: boolean,
  command = 'npm test',
) => ({
  tool: raw ? 'run_bash' : 'write_file',
  args: raw ? { command } : { path: 'a.txt' },
  reason,
  ...(raw ? { raw: true } : {}),
});

describe('sessionOffer: what a question may offer for the rest of the session', () => {
  it("offers a raw shell command's pattern, never its whole tool", () => {
    expect(sessionOffer(call('raw-command', true))).toEqual({
      shell: true,
      lasting: true,
      wholeTool: false,
      pattern: 'run_bash(npm test *)',
    });
    // A line with no safe prefix offers nothing for the session.
    expect(sessionOffer(call('raw-command', true, 'eval "$X"'))).toEqual({
      shell: true,
      lasting: true,
      wholeTool: false,
    });
  });

  it('offers the whole tool for a call that runs no raw command', () => {
    expect(sessionOffer(call('approval-required', false))).toEqual({
      shell: false,
      lasting: true,
      wholeTool: true,
    });
  });

  it('offers no pattern under the mode always, which no allow pattern lifts', () => {
    expect(sessionOffer(call('mode-always', true))).toEqual({ shell: true, lasting: true, wholeTool: false });
    expect(sessionOffer(call('mode-always', false))).toEqual({
      shell: false,
      lasting: true,
      wholeTool: true,
    });
  });

  it("offers nothing at an ask rule's question, which asks every time", () => {
    expect(sessionOffer(call('rule', true))).toEqual({ shell: true, lasting: false, wholeTool: false });
    expect(sessionOffer(call('rule', false))).toEqual({ shell: false, lasting: false, wholeTool: false });
  });
});
