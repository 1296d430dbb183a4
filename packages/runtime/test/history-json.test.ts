import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { historyJson } from '../src/history-json.js';

describe("a session's conversation as JSON", () => {
  it("puts a subagent's messages right after its task call's result, each naming the call", () => {
    const task = { id: 'call_1', name: 'task', args: { prompt: 'look' } };
    const messages = [
      new HumanMessage('find it'),
      new AIMessage({ content: '', tool_calls: [task] }),
      new ToolMessage({ content: 'found', tool_call_id: 'call_1' }),
      new AIMessage('It is found.'),
    ];
    const inner = {
      messages: [
        new HumanMessage('look'),
        new AIMessage({ content: '', tool_calls: [{ ...task, id: 'call_2' }] }),
        new ToolMessage({ content: 'done', tool_call_id: 'call_2' }),
      ],
      subagents: new Map([['call_2', { messages: [new AIMessage('deep')] }]]),
    };
    const json = historyJson({ messages, subagents: new Map([['call_1', inner]]) }) as Array<
      Record<string, unknown>
    >;
    expect(json.map((m) => [m.role, m.subagentOf])).toEqual([
      ['human', undefined],
      ['ai', undefined],
      ['tool', undefined],
      ['human', 'call_1'],
      ['ai', 'call_1'],
      ['tool', 'call_1'],
      ['ai', 'call_2'],
      ['ai', undefined],
    ]);
    expect(json[3]).toEqual({ role: 'human', content: 'look', subagentOf: 'call_1' });
  });

  it('is the messages alone without subagents', () => {
    expect(historyJson({ messages: [new HumanMessage('hi')] })).toEqual([{ role: 'human', content: 'hi' }]);
  });
});
