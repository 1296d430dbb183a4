import type { AIMessageChunk } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { functionCallFormat, httpTarget, startFixtureModel } from './http-target.js';
import { defineContractSuite } from './suite.js';

const ollamaEnv = (url: string) => ({ LLM_VENDOR: 'ollama', OLLAMA_HOST: url });

defineContractSuite(
  httpTarget({
    name: 'ollama',
    env: ollamaEnv,
    // Ollama's chat API has no tool_call_id: results answer the calls in order.
    ...functionCallFormat(false),
    isStream: (body) => body.stream === true,
    alwaysStreams: true,
    checkRequest: (request) => {
      expect(request.body.model).toBe('llama3.2');
    },
  }),
);

describe('ollama: tool calls after streamed text', () => {
  it('keeps two tool calls apart, in invoke and in a concatenated stream', async () => {
    const { model, close } = await startFixtureModel(
      new URL('../fixtures/ollama/tools-after-text.json', import.meta.url),
      ollamaEnv,
    );
    try {
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
      await close();
    }
  });
});
