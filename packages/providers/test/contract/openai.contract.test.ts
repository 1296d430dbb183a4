import { expect } from 'vitest';
import { httpTarget, TEST_KEY } from './http-target.js';
import { defineContractSuite } from './suite.js';

defineContractSuite(
  httpTarget({
    name: 'openai',
    env: (url) => ({ LLM_VENDOR: 'openai', LLM_BASE_URL: `${url}/v1`, OPENAI_API_KEY: TEST_KEY }),
    apiKey: TEST_KEY,
    authEnvVar: 'OPENAI_API_KEY',
    toolNames: (body) => body.tools.map((t: any) => t.function.name),
    toolExchange: (body) => {
      const assistant = body.messages.find((m: any) => m.role === 'assistant' && m.tool_calls);
      return {
        calls: assistant.tool_calls.map((c: any) => ({ id: c.id, name: c.function.name })),
        results: body.messages
          .filter((m: any) => m.role === 'tool')
          .map((m: any) => ({ id: m.tool_call_id, content: m.content })),
      };
    },
    isStream: (body) => body.stream === true && body.stream_options?.include_usage === true,
    checkRequest: (request) => {
      expect(request.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
      expect(request.body.model).toBe('gpt-4o-mini');
    },
  }),
);
