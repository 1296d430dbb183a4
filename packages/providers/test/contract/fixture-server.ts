import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One recorded exchange: what the client should send, and the vendor's answer in its wire format. */
export interface Exchange {
  request: { method: string; path: string };
  response: {
    status: number;
    headers?: Record<string, string>;
    /** A JSON body. */
    json?: unknown;
    /** Server-sent events (OpenAI, Anthropic streams); `data` objects are JSON-encoded, strings sent raw. */
    sse?: Array<{ event?: string; data: unknown }>;
    /** Newline-delimited JSON (Ollama). */
    ndjson?: unknown[];
  };
}

export interface Fixture {
  description: string;
  exchanges: Exchange[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface FixtureServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function loadFixture(url: URL): Promise<Fixture> {
  return JSON.parse(await readFile(url, 'utf8')) as Fixture;
}

/**
 * A local HTTP server on 127.0.0.1 that replays a fixture's responses in order and records every request.
 * A request that does not match the next exchange (method, path) gets a 599 answer, so the test fails loudly.
 */
export async function startFixtureServer(fixture: Fixture): Promise<FixtureServer> {
  const requests: RecordedRequest[] = [];
  let next = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {}
    const path = (req.url ?? '').split('?')[0]!;
    requests.push({ method: req.method ?? '', path, headers: req.headers, body });
    const exchange = fixture.exchanges[next++];
    if (!exchange || exchange.request.method !== req.method || exchange.request.path !== path) {
      const expected = exchange ? `${exchange.request.method} ${exchange.request.path}` : 'no more requests';
      res.writeHead(599, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `fixture mismatch: got ${req.method} ${path}, expected ${expected}` }));
      return;
    }
    const { status, headers = {}, json, sse, ndjson } = exchange.response;
    if (sse) {
      res.writeHead(status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
      for (const event of sse) {
        const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
        res.write(`${event.event ? `event: ${event.event}\n` : ''}data: ${data}\n\n`);
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    } else if (ndjson) {
      res.writeHead(status, { 'content-type': 'application/x-ndjson', ...headers });
      for (const line of ndjson) {
        res.write(`${JSON.stringify(line)}\n`);
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    } else {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(json === undefined ? '' : JSON.stringify(json));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
