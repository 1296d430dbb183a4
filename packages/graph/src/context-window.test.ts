import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { contextWindow } from './context-window.js';

function history() {
  return [
    new HumanMessage('q1'),
    new AIMessage({
      content: '',
      tool_calls: [
        { id: 'a', name: 't', args: {} },
        { id: 'b', name: 't', args: {} },
      ],
    }),
    new ToolMessage({ tool_call_id: 'a', content: 'A' }),
    new ToolMessage({ tool_call_id: 'b', content: 'B' }),
    new AIMessage('answer'),
    new HumanMessage('q2'),
  ];
}

describe('contextWindow', () => {
  it('keeps everything when the history is short', () => {
    const h = history();
    expect(contextWindow(h, 20)).toEqual(h);
  });

  it('never starts with a ToolMessage whose call was cut off', () => {
    const h = history();
    for (let size = 1; size <= h.length; size += 1) {
      const window = contextWindow(h, size);
      expect(window.length).toBeLessThanOrEqual(size);
      if (window.length > 0) expect(window[0]?.type).not.toBe('tool');
    }
    expect(contextWindow(h, 4).map((m) => m.content)).toEqual(['answer', 'q2']);
    expect(contextWindow(h, 5).map((m) => m.type)).toEqual(['ai', 'tool', 'tool', 'ai', 'human']);
  });
});
