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
      expect(window.length).toBeLessThanOrEqual(size + 1);
      if (window.length > 0) expect(window[0]?.type).not.toBe('tool');
      // Every tool result in the window has its call in the window.
      const calls = new Set(
        window.flatMap((m) =>
          ('tool_calls' in m ? ((m as AIMessage).tool_calls ?? []) : []).map((c) => c.id),
        ),
      );
      for (const m of window) if (ToolMessage.isInstance(m)) expect(calls.has(m.tool_call_id)).toBe(true);
    }
    expect(contextWindow(h, 1).map((m) => m.content)).toEqual(['q2']);
  });

  it('puts the user request in front when the window would start with the model', () => {
    const h = history();
    expect(contextWindow(h, 4).map((m) => m.content)).toEqual(['q1', 'answer', 'q2']);
    expect(contextWindow(h, 5).map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'tool', 'ai', 'human']);
    expect(contextWindow(h, 5)[0]?.content).toBe('q1');
  });
});
