import { expect } from 'vitest';
import { httpTarget, TEST_KEY } from './http-target.js';
import { defineContractSuite } from './suite.js';

const text = (content: any): string =>
  typeof content === 'string' ? content : content.map((block: any) => block.text ?? '').join('');

defineContractSuite(
  httpTarget({
    name: 'anthropic',
    env: (url) => ({ LLM_VENDOR: 'anthropic', LLM_BASE_URL: url, ANTHROPIC_API_KEY: TEST_KEY }),
    apiKey: TEST_KEY,
    authEnvVar: 'ANTHROPIC_API_KEY',
    toolNames: (body) => body.tools.map((t: any) => t.name),
    toolExchange: (body) => {
      const assistant = body.messages.find((m: any) => m.role === 'assistant' && Array.isArray(m.content));
      return {
        calls: assistant.content
          .filter((b: any) => b.type === 'tool_use')
          .map((b: any) => ({ id: b.id, name: b.name })),
        results: body.messages
          .filter((m: any) => m.role === 'user' && Array.isArray(m.content))
          .flatMap((m: any) => m.content.filter((b: any) => b.type === 'tool_result'))
          .map((b: any) => ({ id: b.tool_use_id, content: text(b.content) })),
      };
    },
    isStream: (body) => body.stream === true,
    checkRequest: (request) => {
      expect(request.headers['x-api-key']).toBe(TEST_KEY);
      expect(request.headers['anthropic-version']).toBeTruthy();
      expect(request.body.model).toBe('claude-sonnet-4-5');
      expect(request.body.max_tokens).toBeGreaterThan(0);
    },
  }),
);
