import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  host: string;
  body: string;
  headers: IncomingMessage['headers'];
}

export interface TestServer {
  origin: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, seen: SeenRequest, count: number) => void;

/** A real HTTP server on 127.0.0.1 that records every request; `handler` sees how often its path was hit. */
export async function startServer(handler: Handler): Promise<TestServer> {
  const seen: SeenRequest[] = [];
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        url: req.url ?? '',
        host: req.headers.host ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        headers: req.headers,
      };
      seen.push(entry);
      const path = entry.url.split('?')[0]!;
      const count = (counts.get(path) ?? 0) + 1;
      counts.set(path, count);
      handler(req, res, entry, count);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
