import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { agentEventJson, messageJson, turnResultJson } from './event-json.js';

describe('event JSON (shared by birdie run --json and the HTTP API)', () => {
  it('gives a message event its message as plain JSON, with the agent path when there is one', () => {
    const message = new AIMessage({
      id: 'ai-1',
      content: 'calling',
      tool_calls: [{ id: 'call_1', name: 'echo', args: { text: 'hi' } }],
    });
    expect(agentEventJson({ type: 'message', message })).toEqual({
      type: 'message',
      message: {
        role: 'ai',
        content: 'calling',
        id: 'ai-1',
        tool_calls: [{ id: 'call_1', name: 'echo', args: { text: 'hi' } }],
      },
    });
    expect(agentEventJson({ type: 'message', message, agent: ['reviewer'] })).toMatchObject({
      agent: ['reviewer'],
    });
    const tool = new ToolMessage({ content: 'hi', tool_call_id: 'call_1', name: 'echo', status: 'success' });
    expect(messageJson(tool as never)).toEqual({
      role: 'tool',
      content: 'hi',
      tool_call_id: 'call_1',
      name: 'echo',
      status: 'success',
    });
  });

  it('passes other events through as they are, and words the result event', () => {
    const event = { type: 'tool-start' as const, id: 'c', name: 'echo', args: { a: 1 } };
    expect(agentEventJson(event)).toEqual(event);
    expect(turnResultJson({ status: 'ok', session: 's', inputTokens: 1, outputTokens: 2 })).toEqual({
      type: 'result',
      status: 'ok',
      session: 's',
      inputTokens: 1,
      outputTokens: 2,
    });
  });
});
