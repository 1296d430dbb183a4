import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatOpenAI } from '@langchain/openai';
import type { Cleanups } from './helpers.js';

export interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: Array<{
    role: string;
    content: unknown;
    tool_call_id?: string;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  }>;
  tools?: Array<{
    type: string;
    function: { name: string; description?: string; parameters: Record<string, unknown> };
  }>;
}

export type Reply = { text: string } | { call: { name: string; args: Record<string, unknown> } };

export interface FakeOpenAIOptions {
  /** Refuse (HTTP 400, as OpenAI does) a request with more tools than this; the request is still recorded. */
  maxTools?: number;
}

/**
 * An OpenAI-compatible chat completions endpoint on 127.0.0.1 that records every request and answers per `reply`
 * (or, past `maxTools`, refuses it the way OpenAI refuses more than 128 tools).
 */
export async function fakeOpenAI(
  cleanups: Cleanups,
  reply: (request: ChatRequest) => Reply,
  options: FakeOpenAIOptions = {},
) {
  const requests: ChatRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const request = JSON.parse(body) as ChatRequest;
      requests.push(request);
      const tools = request.tools?.length ?? 0;
      if (options.maxTools !== undefined && tools > options.maxTools) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: {
              message: `Invalid 'tools': array too long. Expected an array with maximum length ${options.maxTools}, but got an array with length ${tools} instead.`,
              type: 'invalid_request_error',
              param: 'tools',
              code: 'array_above_max_length',
            },
          }),
        );
        return;
      }
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
