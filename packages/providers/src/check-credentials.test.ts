import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkCredentials } from './check-credentials.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A vendor stand-in: 200 for the key "good", 401 otherwise; records what it was asked. */
async function vendor(): Promise<{
  url: string;
  seen: Array<{ path: string; headers: IncomingHttpHeaders }>;
}> {
  const seen: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const key = req.headers.authorization?.replace('Bearer ', '') ?? req.headers['x-api-key'];
    res.writeHead(key === 'good' || req.url === '/api/tags' ? 200 : 401, {
      'content-type': 'application/json',
    });
    res.end('{"data":[]}');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

describe('checkCredentials', () => {
  it('lists models with the key: valid, rejected on 401, as each vendor sends its key', async () => {
    const { url, seen } = await vendor();
    expect(await checkCredentials({ vendor: 'openai', apiKey: 'good', baseUrl: `${url}/v1` })).toEqual({
      status: 'valid',
    });
    expect(await checkCredentials({ vendor: 'openai', apiKey: 'bad', baseUrl: `${url}/v1` })).toEqual({
      status: 'rejected',
      reason: 'openai refused the key (HTTP 401)',
    });
    expect(await checkCredentials({ vendor: 'anthropic', apiKey: 'good', baseUrl: url })).toEqual({
      status: 'valid',
    });
    expect(await checkCredentials({ vendor: 'ollama', baseUrl: url })).toEqual({ status: 'valid' });
    expect(seen.map((s) => s.path)).toEqual(['/v1/models', '/v1/models', '/v1/models', '/api/tags']);
    expect(seen[2]?.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('says it could not check, rather than guessing, when nothing answers or the vendor has no check', async () => {
    const { url } = await vendor();
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const dead = await checkCredentials({ vendor: 'openai', apiKey: 'good', baseUrl: url, timeoutMs: 2_000 });
    expect(dead).toMatchObject({
      status: 'unchecked',
      reason: expect.stringContaining('could not be reached'),
    });
    expect(await checkCredentials({ vendor: 'azure', apiKey: 'k' })).toEqual({
      status: 'unchecked',
      reason: 'azure has no cheap check',
    });
  });
});
