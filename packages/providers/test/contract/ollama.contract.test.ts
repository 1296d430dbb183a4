import type { AIMessageChunk } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { createChatModel, resolveProviderConfig } from '../../src/index.js';
import { loadFixture, startFixtureServer } from './fixture-server.js';
import { httpTarget } from './http-target.js';
import { defineContractSuite } from './suite.js';

defineContractSuite(
  httpTarget({
    name: 'ollama',
    env: (url) => ({ LLM_VENDOR: 'ollama', OLLAMA_HOST: url }),
    toolNames: (body) => body.tools.map((t: any) => t.function.name),
    toolExchange: (body) => {
      const assistant = body.messages.find((m: any) => m.role === 'assistant' && m.tool_calls);
      return {
        calls: assistant.tool_calls.map((c: any) => ({ id: c.id, name: c.function.name })),
        // Ollama's chat API has no tool_call_id: results answer the calls in order.
        results: body.messages
          .filter((m: any) => m.role === 'tool')
          .map((m: any) => ({ content: m.content })),
      };
    },
    isStream: (body) => body.stream === true,
    alwaysStreams: true,
    checkRequest: (request) => {
      expect(request.body.model).toBe('llama3.2');
    },
  }),
);

describe('ollama: tool calls after streamed text', () => {
  it('keeps two tool calls apart, in invoke and in a concatenated stream', async () => {
    const server = await startFixtureServer(
      await loadFixture(new URL('../fixtures/ollama/tools-after-text.json', import.meta.url)),
    );
    try {
      const { config } = await resolveProviderConfig({
        env: { LLM_VENDOR: 'ollama', OLLAMA_HOST: server.url },
      });
      const model = await createChatModel(config);
      const expected = [
        { name: 'get_weather', args: { city: 'Paris' } },
        { name: 'get_time', args: { timezone: 'Europe/Paris' } },
      ];
      const invoked = await model.invoke('weather and time in Paris?');
      expect(invoked.tool_calls?.map(({ name, args }) => ({ name, args }))).toEqual(expected);
      expect(invoked.text).toBe('Let me check.');
      const chunks: AIMessageChunk[] = [];
      for await (const chunk of await model.stream('weather and time in Paris?')) chunks.push(chunk);
      const streamed = chunks.reduce((a, b) => a.concat(b));
      expect(streamed.tool_calls?.map(({ name, args }) => ({ name, args }))).toEqual(expected);
      expect(new Set(streamed.tool_calls?.map((call) => call.id)).size).toBe(2);
    } finally {
      await server.close();
    }
  });
});
