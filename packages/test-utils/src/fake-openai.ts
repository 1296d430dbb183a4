// A local OpenAI-compatible `/audio/transcriptions` for the voice tests: records each request's headers and body.
import { createServer, type Server } from 'node:http';

export interface Transcription {
  authorization?: string;
  contentType?: string;
  body: Buffer;
}

export class FakeOpenAi {
  readonly requests: Transcription[] = [];
  private server: Server | undefined;
  url = '';

  constructor(private readonly text: string) {}

  async start(): Promise<void> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') {
        res.writeHead(404).end();
        return;
      }
      this.requests.push({
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}),
        body: Buffer.concat(chunks),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: this.text }));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (typeof address === 'object' && address) this.url = `http://127.0.0.1:${address.port}/v1`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
