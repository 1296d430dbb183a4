import { fileURLToPath } from 'node:url';
import type { BaseMessage } from '@langchain/core/messages';
import { createChatModel, resolveProviderConfig, type ScriptedCall } from '../../src/index.js';
import { defineContractSuite } from './suite.js';

const fixtures = new URL('../fixtures/scripted/', import.meta.url);

defineContractSuite({
  name: 'scripted',
  async start(scenario, onRetry) {
    const script = fileURLToPath(new URL(`${scenario}.json`, fixtures));
    const { config } = await resolveProviderConfig({ env: { LLM_VENDOR: 'scripted', LLM_SCRIPT: script } });
    const model = await createChatModel(config, { onRetry });
    return {
      model,
      requests: () => (model as unknown as { calls: ScriptedCall[] }).calls,
      close: async () => {},
    };
  },
  toolNames: (request) => (request as ScriptedCall).tools,
  toolExchange: (request) => {
    const messages: BaseMessage[] = (request as ScriptedCall).messages;
    const assistant = messages.find((m) => m.getType() === 'ai' && (m as any).tool_calls?.length) as any;
    return {
      calls: assistant.tool_calls.map((c: any) => ({ id: c.id, name: c.name })),
      results: messages
        .filter((m) => m.getType() === 'tool')
        .map((m: any) => ({ id: m.tool_call_id, content: String(m.content) })),
    };
  },
});
