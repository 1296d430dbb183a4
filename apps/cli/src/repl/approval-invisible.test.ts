import type { ApprovalRequest } from '@birdie/graph';
import { describe, expect, it } from 'vitest';
import { approvalBox } from './approval.js';

const request: ApprovalRequest = {
  id: 'call-1',
  digest: 'd',
  tool: 'write\u2066_file',
  skill: 'filesystem',
  args: { path: 'notes\u202etxt.sh', content: 'echo hi\u200b' },
  description: 'filesystem › write_file({"path":"notes\u202etxt.sh","content":"echo hi\u200b"})',
  reason: 'approval-required',
};

describe('the terminal approval box', () => {
  it('writes out a bidi override and a zero-width space of the model’s arguments, so the call reads as it runs', async () => {
    const box = await approvalBox(request);
    const text = [box.title, ...box.lines.map((l) => l.text)].join('\n');
    expect(text).not.toMatch(/[\u202e\u200b\u2066]/);
    expect(text).toContain('write\\u2066_file');
    expect(text).toContain('"path": "notes\\u202etxt.sh"');
    expect(text).toContain('echo hi\\u200b');
  });

  it('escapes them in a file change’s path and lines too', async () => {
    const box = await approvalBox({
      ...request,
      preview: {
        changes: [{ kind: 'file', path: 'notes\u202etxt.sh', before: '', after: 'echo hi\u200b\n' }],
      },
    } as ApprovalRequest);
    const text = box.lines.map((l) => l.text).join('\n');
    expect(text).not.toMatch(/[\u202e\u200b]/);
    expect(text).toContain('notes\\u202etxt.sh');
  });
});
