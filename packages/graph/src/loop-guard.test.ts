import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { callSignature, previousRepeats } from './loop-guard.js';

const call = (args: Record<string, unknown>, id: string) =>
  new AIMessage({ content: '', tool_calls: [{ id, name: 'ls', args }] });

describe('loop guard', () => {
  it('treats argument order as irrelevant', () => {
    expect(callSignature('ls', { a: 1, b: 2 })).toBe(callSignature('ls', { b: 2, a: 1 }));
  });

  it('counts consecutive earlier turns with the same call, stopping at the user', () => {
    const messages = [
      call({ p: '.' }, 'x0'),
      new ToolMessage({ tool_call_id: 'x0', content: '' }),
      new HumanMessage('again'),
      call({ p: '.' }, 'x1'),
      new ToolMessage({ tool_call_id: 'x1', content: '' }),
      call({ p: '.' }, 'x2'),
      new ToolMessage({ tool_call_id: 'x2', content: '' }),
      call({ p: '.' }, 'x3'),
    ];
    expect(previousRepeats(messages, 7, callSignature('ls', { p: '.' }))).toBe(2);
    expect(previousRepeats(messages, 7, callSignature('ls', { p: '/' }))).toBe(0);
  });
});
