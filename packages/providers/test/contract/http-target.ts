import { expect } from 'vitest';
import { createChatModel, resolveProviderConfig } from '../../src/index.js';
import type { ContractTarget, Scenario, ToolExchange } from './suite.js';
import { loadFixture, type RecordedRequest, startFixtureServer } from './fixture-server.js';

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

/** A contract target: the vendor's real LangChain client, configured like a user would, against a fixture server. */
export function httpTarget(options: HttpTargetOptions): ContractTarget {
  const fixtures = new URL(`../fixtures/${options.name}/`, import.meta.url);
  return {
    name: options.name,
    apiKey: options.apiKey,
    authEnvVar: options.authEnvVar,
    async start(scenario: Scenario, onRetry) {
      const server = await startFixtureServer(await loadFixture(new URL(`${scenario}.json`, fixtures)));
      const { config } = await resolveProviderConfig({ env: options.env(server.url) });
      expect(config.base_url?.startsWith('http://127.0.0.1:')).toBe(true);
      const model = await createChatModel(config, { onRetry });
      return { model, requests: () => server.requests, close: () => server.close() };
    },
    toolNames: (request) => options.toolNames((request as RecordedRequest).body),
    toolExchange: (request) => options.toolExchange((request as RecordedRequest).body),
    alwaysStreams: options.alwaysStreams,
    isStreamRequest: (request) => options.isStream((request as RecordedRequest).body),
    checkRequest: options.checkRequest
      ? (request) => options.checkRequest!(request as RecordedRequest)
      : undefined,
  };
}
