import { expect } from 'vitest';
import { functionCallFormat, httpTarget, TEST_KEY } from './http-target.js';
import { defineContractSuite } from './suite.js';

defineContractSuite(
  httpTarget({
    name: 'openai',
    env: (url) => ({ LLM_VENDOR: 'openai', LLM_BASE_URL: `${url}/v1`, OPENAI_API_KEY: TEST_KEY }),
    apiKey: TEST_KEY,
    authEnvVar: 'OPENAI_API_KEY',
    ...functionCallFormat(true),
    isStream: (body) => body.stream === true && body.stream_options?.include_usage === true,
    checkRequest: (request) => {
      expect(request.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
      expect(request.body.model).toBe('gpt-4o-mini');
    },
  }),
);
