import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { agentSpec, collect, ofType, skillsFixture, useCleanups, withAgents } from './helpers.js';

const cleanups = useCleanups();

const REVIEWER = 'You are the reviewer: never accept a claim without a source.';
const RESEARCHER = 'You are the researcher: look things up and answer with facts only.';

interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: Array<{ role: string; content: unknown; tool_calls?: unknown[] }>;
  tools?: Array<{ type: string; function: { name: string; parameters: Record<string, unknown> } }>;
}

type Reply = { text: string } | { call: { name: string; args: Record<string, unknown> } };

/** An OpenAI-compatible chat completions endpoint on 127.0.0.1 that records every request and answers per `reply`. */
async function fakeOpenAI(reply: (request: ChatRequest) => Reply) {
  const requests: ChatRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const request = JSON.parse(body) as ChatRequest;
      requests.push(request);
      const answer = reply(request);
      const toolCalls =
        'call' in answer
          ? [
              {
                index: 0,
                id: `call_${requests.length}`,
                type: 'function',
                function: { name: answer.call.name, arguments: JSON.stringify(answer.call.args) },
              },
            ]
          : undefined;
      const finish = toolCalls ? 'tool_calls' : 'stop';
      const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
      const base = { id: `chatcmpl-${requests.length}`, created: 0, model: request.model };
      if (!request.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [
              {
                index: 0,
                message: {
                  role: 'assistant',
                  content: 'text' in answer ? answer.text : null,
                  tool_calls: toolCalls,
                },
                finish_reason: finish,
              },
            ],
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: unknown, finishReason: string | null, extra = {}) =>
        res.write(
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`,
        );
      chunk({ role: 'assistant', content: '' }, null);
      if ('text' in answer) for (const word of answer.text.split(/(?<= )/)) chunk({ content: word }, null);
      else chunk({ tool_calls: toolCalls }, null);
      chunk({}, finish);
      res.write(
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const model = (name: string) =>
    new ChatOpenAI({
      model: name,
      apiKey: 'sk-test',
      maxRetries: 0,
      configuration: { baseURL: `http://127.0.0.1:${port}/v1` },
    });
  return { requests, model };
}

const text = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));

describe('agents against an OpenAI-compatible HTTP server', () => {
  it("sends the agent's body in the first call's system prompt, and the subagent's in the subagent's call", async () => {
    const server = await fakeOpenAI((request) => {
      const users = request.messages.filter((m) => m.role === 'user').map((m) => text(m.content));
      if (request.messages.some((m) => m.role === 'tool')) return { text: 'Confirmed: owls hunt at night.' };
      if (users[0] === 'find facts about owls') return { text: 'Owls hunt at night.' };
      return { call: { name: 'task', args: { agent: 'researcher', prompt: 'find facts about owls' } } };
    });
    const fx = await skillsFixture({});
    const agents = [
      agentSpec('reviewer', { body: REVIEWER, subagents: ['researcher'] }),
      agentSpec('researcher', { body: RESEARCHER, model: 'openai:gpt-small' }),
    ];
    const agent = createAgent({
      model: server.model('gpt-main'),
      registry: withAgents(fx.registry, agents),
      policy: fx.policy,
      modelFor: async (spec) => server.model(spec.slice(spec.indexOf(':') + 1)),
    });
    cleanups.push(async () => {
      await agent.close();
      await fx.dir.cleanup();
    });

    const events = await collect(
      agent.stream('Do owls hunt at night?', { threadId: 's1', agent: 'reviewer' }),
    );
    expect(ofType(events, 'error')).toEqual([]);
    const [first, sub, last] = server.requests;
    expect(server.requests).toHaveLength(3);

    expect(first?.model).toBe('gpt-main');
    expect(first?.messages[0]?.role).toBe('system');
    expect(text(first?.messages[0]?.content)).toContain(REVIEWER);
    expect(text(first?.messages[0]?.content)).not.toContain(RESEARCHER);
    expect(first?.tools?.map((t) => t.function.name)).toEqual(['task']);
    expect(first?.tools?.[0]?.function.parameters).toMatchObject({
      properties: { agent: { enum: ['researcher'] } },
    });

    expect(sub?.model).toBe('gpt-small');
    expect(sub?.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(text(sub?.messages[0]?.content)).toContain(RESEARCHER);
    expect(text(sub?.messages[0]?.content)).not.toContain(REVIEWER);
    expect(text(sub?.messages[1]?.content)).toBe('find facts about owls');

    expect(last?.model).toBe('gpt-main');
    expect(last?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Owls hunt at night.' });
    const answer = ofType(events, 'message').at(-1);
    expect([answer?.message.text, answer?.agent]).toEqual(['Confirmed: owls hunt at night.', ['reviewer']]);
    const nested = ofType(events, 'token').filter((e) => e.agent?.join('/') === 'reviewer/researcher');
    expect(nested.map((e) => e.text).join('')).toBe('Owls hunt at night.');
  });
});
