import { methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { connect, fakeRuntime, W } from './helpers.js';

// Issue 33: an MCP server's sampling request during an ACP turn is a permission request to the editor (the request,
// then the model's answer); elicitation is declined to a client that did not advertise forms (see mcp-elicitation.test.ts).
describe('MCP sampling and elicitation over ACP', () => {
  it('asks the editor about the request and the answer; a form is declined', async () => {
    const heard: unknown[] = [];
    const { runtime } = fakeRuntime({
      turn: async (_text, o) => {
        const request = {
          systemPrompt: 'You are a helpful test server.',
          messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'a haiku on birds' } }],
          maxTokens: 100,
        };
        heard.push(await o.mcp?.approveSampling?.({ server: 'everything', request }));
        heard.push(
          await o.mcp?.approveSampling?.({ server: 'everything', request, answer: 'wings over water' }),
        );
        heard.push(o.mcp?.elicit === undefined ? 'declined' : 'asked');
        return { status: 'ok', inputTokens: 0, outputTokens: 0 };
      },
    });
    const test = connect(runtime);
    let n = 0;
    test.answer = () => {
      n += 1;
      return { outcome: { outcome: 'selected', optionId: n === 1 ? 'allow-sampling' : 'reject-sampling' } };
    };
    await test.connection.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    const { sessionId } = await test.connection.agent.request(methods.agent.session.new, {
      cwd: W,
      mcpServers: [],
    });
    await test.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'go' }],
    });
    expect(heard).toEqual([true, false, 'declined']);
    expect(test.permissions.map((p) => p.toolCall.title)).toEqual([
      'MCP server everything asks the model for a completion',
      "Send the model's answer to MCP server everything",
    ]);
    expect(JSON.stringify(test.permissions[0]?.toolCall.content)).toContain('user: a haiku on birds');
    expect(JSON.stringify(test.permissions[1]?.toolCall.content)).toContain('wings over water');
    expect(test.permissions[0]?.options.map((o) => o.kind)).toEqual(['allow_once', 'reject_once']);
  });
});
