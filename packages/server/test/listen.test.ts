import { describe, expect, it } from 'vitest';
import { events, useServer } from './helpers.js';

describe('over real HTTP', () => {
  const h = useServer({ maxBodyBytes: 4096 });

  it('listens on loopback, streams a turn, survives an oversized body on a kept-alive connection, and closes', async () => {
    const { url, host } = await h.server.listen({ host: '127.0.0.1', port: 0 });
    expect(host).toBe('127.0.0.1');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const token = await h.token();
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const { id } = (await (
      await fetch(`${url}/v1/sessions`, { method: 'POST', headers: auth, body: '{}' })
    ).json()) as {
      id: string;
    };
    const streamed = await fetch(`${url}/v1/sessions/${id}/turns`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ prompt: 'hi' }),
    });
    expect((await events(streamed)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });

    // The server answers 413 before reading the whole body; the next request must not meet a dead connection.
    const big = await fetch(`${url}/v1/sessions/${id}/turns`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ prompt: 'x'.repeat(512 * 1024) }),
    });
    expect(big.status).toBe(413);
    await big.text();
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${url}/v1/sessions`, { headers: auth })).status).toBe(200);

    // A body sent in chunks (no Content-Length) is counted as it arrives: over the limit 413, under it read as JSON.
    const chunked = (text: string) =>
      fetch(`${url}/v1/sessions`, {
        method: 'POST',
        headers: auth,
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(text));
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
    const over = await chunked(JSON.stringify({ title: 'x'.repeat(8192) }));
    expect(over.status).toBe(413);
    await over.text();
    const under = await chunked(JSON.stringify({ title: 'chunked' }));
    expect(under.status).toBe(201);
    expect(await under.json()).toMatchObject({ title: 'chunked' });
    // Every answer carries its request id, the event streams too.
    const again = await fetch(`${url}/v1/sessions/${id}/turns`, {
      method: 'POST',
      headers: { ...auth, 'x-request-id': 'listen-test-1' },
      body: JSON.stringify({ prompt: 'hi again' }),
    });
    expect(again.headers.get('x-request-id')).toBe('listen-test-1');
    await again.text();

    expect(await h.server.close({ graceMs: 100 })).toEqual({ finished: 0, cancelled: 0 });
    await expect(fetch(`${url}/v1/health`)).rejects.toThrow();
  });
});
