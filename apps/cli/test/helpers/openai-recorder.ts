import { createServer, type IncomingMessage, type Server } from 'node:http';

/** One chat completion request as the recorder received it (the JSON body). */
export interface RecordedRequest {
  model?: string;
  temperature?: number;
  stream?: boolean;
  messages: Array<{ role: string; content: unknown }>;
  [key: string]: unknown;
}

/** What the recorder answers a request with: text, or a status to fail with (a 503 to test retries). */
export type RecorderReply = { text: string } | { status: number };

export interface OpenAiRecorder {
  /** `http://127.0.0.1:PORT/v1`: the base URL to give birdie. */
  baseUrl: string;
  /** Every chat completion request, in order (failed ones included). */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A local OpenAI-compatible server that records every `/v1/chat/completions` request and answers with what `reply`
 * says for it (plain JSON, or server-sent events when the request streams), as llama.cpp or vLLM would.
 */
export async function openAiRecorder(
  reply: (request: RecordedRequest, index: number) => RecorderReply,
): Promise<OpenAiRecorder> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (!req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const parsed = JSON.parse(await body(req)) as RecordedRequest;
      requests.push(parsed);
      const answer = reply(parsed, requests.length - 1);
      if ('status' in answer) {
        res
          .writeHead(answer.status, { 'content-type': 'application/json', 'retry-after': '0' })
          .end(JSON.stringify({ error: { message: 'try again', type: 'server_error' } }));
        return;
      }
      const base = { id: `chatcmpl-${requests.length}`, created: 0, model: parsed.model ?? 'local' };
      const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
      if (!parsed.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [
              { index: 0, message: { role: 'assistant', content: answer.text }, finish_reason: 'stop' },
            ],
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null, extra: object = {}) =>
        res.write(
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
        );
      chunk({ role: 'assistant', content: answer.text }, null);
      chunk({}, 'stop');
      res.write(
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The text of a recorded message's content (a string, or text parts). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
  return '';
}
