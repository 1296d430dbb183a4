import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type AIMessage, type AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RetryEvent } from '../../src/index.js';
import { rejection } from '../helpers.js';

export type Scenario = 'plain' | 'tools' | 'stream' | 'rate-limit' | 'unauthorized';

export interface ContractSession {
  model: BaseChatModel;
  /** What the model sent, one entry per request (HTTP request, or scripted call). */
  requests(): unknown[];
  close(): Promise<void>;
}

export interface ToolExchange {
  /** Tool calls of the assistant message, as sent back to the vendor. */
  calls: Array<{ id?: string; name: string }>;
  /** Tool results, in the order sent; `id` is the tool_call id they answer (absent in Ollama's protocol). */
  results: Array<{ id?: string; content: string }>;
}

export interface ContractTarget {
  name: string;
  /** The key the target was configured with (must never appear in errors). */
  apiKey?: string;
  /** Variable an auth failure must name. */
  authEnvVar?: string;
  start(scenario: Scenario, onRetry: (event: RetryEvent) => void): Promise<ContractSession>;
  toolNames(request: unknown): string[];
  toolExchange(request: unknown): ToolExchange;
  /** Whether a request asked for a streamed answer (absent: the target has no wire protocol to check). */
  isStreamRequest?(request: unknown): boolean;
  /** The client streams every request, `invoke` included (Ollama). */
  alwaysStreams?: boolean;
  /** Vendor-specific checks of every request (e.g. the key went into the right header). */
  checkRequest?(request: unknown): void;
}

/** The answers every fixture (and script) of every target encodes, each in its own wire format. */
export const EXPECTED = {
  plain: { text: 'Hello from the fixture.', usage: { input_tokens: 12, output_tokens: 5, total_tokens: 17 } },
  tools: {
    calls: [
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_time', args: { timezone: 'Europe/Paris' } },
    ],
    usage: { input_tokens: 40, output_tokens: 30, total_tokens: 70 },
    final: 'It is 18 °C and 14:05 in Paris.',
    finalUsage: { input_tokens: 95, output_tokens: 12, total_tokens: 107 },
  },
  stream: { text: 'The quick brown fox', usage: { input_tokens: 9, output_tokens: 4, total_tokens: 13 } },
  retryAfterMs: 1000,
};

const weather = tool(async ({ city }) => `18 °C in ${city}`, {
  name: 'get_weather',
  description: 'Current weather in a city',
  schema: z.object({ city: z.string() }),
});
const time = tool(async ({ timezone }) => `14:05 in ${timezone}`, {
  name: 'get_time',
  description: 'Current time in a time zone',
  schema: z.object({ timezone: z.string() }),
});

function textOf(message: AIMessage | AIMessageChunk): string {
  return message.text;
}

/** One suite, every target: the real LangChain client against recorded vendor traffic, or the scripted model. */
export function defineContractSuite(target: ContractTarget): void {
  describe(`provider contract: ${target.name}`, () => {
    let session: ContractSession | undefined;
    const retries: RetryEvent[] = [];
    const start = async (scenario: Scenario) => {
      retries.length = 0;
      session = await target.start(scenario, (event) => retries.push(event));
      return session;
    };
    const checkAll = (requests: unknown[]) => {
      for (const request of requests) target.checkRequest?.(request);
    };
    afterEach(async () => {
      await session?.close();
      session = undefined;
    });

    it('returns a plain reply with normalised usage', async () => {
      const { model, requests } = await start('plain');
      const reply = await model.invoke([new HumanMessage('Say hello.')]);
      expect(textOf(reply)).toBe(EXPECTED.plain.text);
      expect(reply.usage_metadata).toMatchObject(EXPECTED.plain.usage);
      expect(requests()).toHaveLength(1);
      if (target.isStreamRequest) {
        expect(target.isStreamRequest(requests()[0])).toBe(target.alwaysStreams ?? false);
      }
      checkAll(requests());
    });

    it('returns two tool calls and sends their results back paired with their ids', async () => {
      const { model, requests } = await start('tools');
      const bound = model.bindTools!([weather, time]);
      const question = new HumanMessage('What is the weather and the time in Paris?');
      const ai = await bound.invoke([question]);
      expect(ai.tool_calls?.map(({ name, args }) => ({ name, args }))).toEqual(EXPECTED.tools.calls);
      const ids = ai.tool_calls!.map((call) => call.id);
      expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
      expect(new Set(ids).size).toBe(2);
      expect(ai.usage_metadata).toMatchObject(EXPECTED.tools.usage);
      expect(target.toolNames(requests()[0])).toEqual(['get_weather', 'get_time']);

      const sent = new Map<string, string>();
      const results = await Promise.all(
        ai.tool_calls!.map(async (call) => {
          const run = (call.name === 'get_weather' ? weather : time) as {
            invoke(args: unknown): Promise<unknown>;
          };
          const content = String(await run.invoke(call.args));
          sent.set(call.id!, content);
          return new ToolMessage({ content, tool_call_id: call.id!, name: call.name });
        }),
      );
      const final = await bound.invoke([question, ai, ...results]);
      expect(textOf(final)).toBe(EXPECTED.tools.final);
      expect(final.usage_metadata).toMatchObject(EXPECTED.tools.finalUsage);

      expect(requests()).toHaveLength(2);
      const exchange = target.toolExchange(requests()[1]);
      expect(exchange.calls.map((call) => call.name)).toEqual(['get_weather', 'get_time']);
      expect(exchange.calls.map((call) => call.id)).toEqual(ids);
      expect(exchange.results).toHaveLength(2);
      exchange.results.forEach((result, index) => {
        // Protocols with ids pair by id; Ollama's pairs a result with the call at the same position.
        const id = result.id ?? ids[index]!;
        expect(ids).toContain(id);
        expect(result.content).toBe(sent.get(id));
      });
      checkAll(requests());
    });

    it('streams a reply in several chunks and reports usage at the end', async () => {
      const { model, requests } = await start('stream');
      const chunks: AIMessageChunk[] = [];
      for await (const chunk of await model.stream([new HumanMessage('Tell me about the fox.')]))
        chunks.push(chunk);
      const withText = chunks.filter((chunk) => textOf(chunk) !== '');
      expect(withText.length).toBeGreaterThanOrEqual(4);
      const whole = chunks.reduce((sum, chunk) => sum.concat(chunk));
      expect(textOf(whole)).toBe(EXPECTED.stream.text);
      expect(whole.usage_metadata).toMatchObject(EXPECTED.stream.usage);
      expect(requests()).toHaveLength(1);
      if (target.isStreamRequest) expect(target.isStreamRequest(requests()[0])).toBe(true);
      checkAll(requests());
    });

    it('retries a 429 after the Retry-After delay, then succeeds', async () => {
      const { model, requests } = await start('rate-limit');
      const reply = await model.invoke([new HumanMessage('Say hello.')]);
      expect(textOf(reply)).toBe(EXPECTED.plain.text);
      expect(reply.usage_metadata).toMatchObject(EXPECTED.plain.usage);
      expect(retries).toEqual([{ attempt: 1, status: 429, delayMs: EXPECTED.retryAfterMs }]);
      expect(requests()).toHaveLength(2);
      checkAll(requests());
    });

    it('turns a 401 into an auth-failed error that names the key variable and hides the key', async () => {
      const { model, requests } = await start('unauthorized');
      const providerError = await rejection(model.invoke([new HumanMessage('Say hello.')]));
      expect(providerError.code).toBe('auth-failed');
      expect(providerError.status).toBe(401);
      expect(providerError.message).toContain('HTTP 401');
      if (target.authEnvVar) {
        expect(providerError.message).toContain(target.authEnvVar);
        expect(providerError.envVar).toBe(target.authEnvVar);
      }
      if (target.apiKey) {
        expect(providerError.message).not.toContain(target.apiKey);
        expect(JSON.stringify(providerError)).not.toContain(target.apiKey);
      }
      expect(retries).toEqual([]);
      expect(requests()).toHaveLength(1);
    });
  });
}
