import { expect } from 'vitest';
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
