import { expect } from 'vitest';
import { createChatModel, type RetryEvent, resolveProviderConfig } from '../../src/index.js';
import { loadFixture, type RecordedRequest, startFixtureServer } from './fixture-server.js';
import type { ContractSession, ContractTarget, Scenario, ToolExchange } from './suite.js';

export const TEST_KEY = 'sk-test-contract-0123456789abcdef';

interface HttpTargetOptions {
  name: 'openai' | 'anthropic' | 'ollama';
  /** Environment the user would set, given the fixture server's URL. */
  env(serverUrl: string): Record<string, string>;
  authEnvVar?: string;
  apiKey?: string;
  toolNames(body: any): string[];
  toolExchange(body: any): ToolExchange;
  isStream(body: any): boolean;
  alwaysStreams?: boolean;
  checkRequest?(request: RecordedRequest): void;
}

/**
 * The vendor's real LangChain client, configured from `env(serverUrl)` like a user would, against a server that
 * replays the recorded `fixture`.
 */
export async function startFixtureModel(
  fixture: URL,
  env: (serverUrl: string) => Record<string, string>,
  onRetry?: (event: RetryEvent) => void,
): Promise<ContractSession> {
  const server = await startFixtureServer(await loadFixture(fixture));
  const { config } = await resolveProviderConfig({ env: env(server.url) });
  expect(config.base_url?.startsWith('http://127.0.0.1:')).toBe(true);
  const model = await createChatModel(config, onRetry ? { onRetry } : {});
  return { model, requests: () => server.requests, close: () => server.close() };
}

/**
 * `toolNames` and `toolExchange` for OpenAI's chat format, which Ollama's chat API follows: tools as `function`s,
 * calls in `tool_calls`, results as `role: 'tool'` messages. `resultIds: false` where results carry no
 * `tool_call_id` and answer the calls in order (Ollama).
 */
export function functionCallFormat(
  resultIds: boolean,
): Pick<HttpTargetOptions, 'toolNames' | 'toolExchange'> {
  return {
    toolNames: (body) => body.tools.map((t: any) => t.function.name),
    toolExchange: (body) => {
      const assistant = body.messages.find((m: any) => m.role === 'assistant' && m.tool_calls);
      return {
        calls: assistant.tool_calls.map((c: any) => ({ id: c.id, name: c.function.name })),
        results: body.messages
          .filter((m: any) => m.role === 'tool')
          .map((m: any) => (resultIds ? { id: m.tool_call_id, content: m.content } : { content: m.content })),
      };
    },
  };
}

/** A contract target: the vendor's real LangChain client, configured like a user would, against a fixture server. */
export function httpTarget(options: HttpTargetOptions): ContractTarget {
  const fixtures = new URL(`../fixtures/${options.name}/`, import.meta.url);
  return {
    name: options.name,
    apiKey: options.apiKey,
    authEnvVar: options.authEnvVar,
    start: (scenario: Scenario, onRetry) =>
      startFixtureModel(new URL(`${scenario}.json`, fixtures), options.env, onRetry),
    toolNames: (request) => options.toolNames((request as RecordedRequest).body),
    toolExchange: (request) => options.toolExchange((request as RecordedRequest).body),
    alwaysStreams: options.alwaysStreams,
    isStreamRequest: (request) => options.isStream((request as RecordedRequest).body),
    checkRequest: options.checkRequest
      ? (request) => options.checkRequest!(request as RecordedRequest)
      : undefined,
  };
}
