import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRetryingFetch,
  isRetryableStatus,
  type RetryEvent,
  retryAfterMs,
  retryDelay,
} from './retry.js';

interface Answer {
  status: number;
  headers?: Record<string, string>;
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A local server answering with the given statuses in turn, recording the bodies it received. */
async function serve(answers: Answer[]): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    bodies.push(body);
    const answer = answers[Math.min(bodies.length - 1, answers.length - 1)]!;
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify({ attempt: bodies.length }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`, bodies };
}

describe('retry policy', () => {
  it('retries 429, 5xx and 529 only', () => {
    expect([429, 500, 502, 503, 529].map(isRetryableStatus)).toEqual([true, true, true, true, true]);
    expect([400, 401, 403, 404, 409].map(isRetryableStatus)).toEqual([false, false, false, false, false]);
  });

  it('reads retry-after-ms, Retry-After seconds and Retry-After dates', () => {
    const now = Date.parse('2025-11-21T10:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Fri, 21 Nov 2025 10:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Fri, 21 Nov 2025 09:00:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  it('backs off exponentially with jitter, capped, and refuses a hint beyond the cap', () => {
    const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
    for (let i = 0; i < 20; i++) {
      const first = retryDelay(1, undefined, policy)!;
      const third = retryDelay(3, undefined, policy)!;
      expect(first).toBeGreaterThanOrEqual(50);
      expect(first).toBeLessThanOrEqual(100);
      expect(third).toBeGreaterThanOrEqual(200);
      expect(third).toBeLessThanOrEqual(400);
      expect(retryDelay(10, undefined, policy)).toBeLessThanOrEqual(1000);
    }
    expect(retryDelay(1, 700, policy)).toBe(700);
    expect(retryDelay(1, 5000, policy)).toBeUndefined();
  });
});

describe('createRetryingFetch', () => {
  it('retries 503 and 529, replaying the same body, then returns the success', async () => {
    const { url, bodies } = await serve([
      { status: 503 },
      { status: 529, headers: { 'retry-after-ms': '5' } },
      { status: 200 },
    ]);
    const events: RetryEvent[] = [];
    const fetch = createRetryingFetch({ maxRetries: 3, baseDelayMs: 5, onRetry: (e) => events.push(e) });
    const response = await fetch(url, { method: 'POST', body: '{"q":1}' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ attempt: 3 });
    expect(bodies).toEqual(['{"q":1}', '{"q":1}', '{"q":1}']);
    expect(events.map((e) => [e.attempt, e.status])).toEqual([
      [1, 503],
      [2, 529],
    ]);
    expect(events[1]!.delayMs).toBe(5);
  });

  it('is bounded: after max retries the last failing response is returned for the client to raise', async () => {
    const { url, bodies } = await serve([{ status: 500 }]);
    const fetch = createRetryingFetch({ maxRetries: 2, baseDelayMs: 1 });
    const response = await fetch(url, { method: 'POST', body: 'x' });
    expect(response.status).toBe(500);
    expect(bodies).toHaveLength(3);
  });

  it('does not retry client errors, nor a Retry-After longer than allowed', async () => {
    const unauthorized = await serve([{ status: 401 }, { status: 200 }]);
    expect((await createRetryingFetch({ maxRetries: 3 })(unauthorized.url)).status).toBe(401);
    expect(unauthorized.bodies).toHaveLength(1);
    await new Promise((resolve) => server!.close(resolve));

    const slow = await serve([{ status: 429, headers: { 'retry-after': '3600' } }, { status: 200 }]);
    expect((await createRetryingFetch({ maxRetries: 3, maxDelayMs: 1000 })(slow.url)).status).toBe(429);
    expect(slow.bodies).toHaveLength(1);
  });

  it('stops waiting when the request is aborted', async () => {
    const { url } = await serve([{ status: 429, headers: { 'retry-after': '30' } }]);
    const controller = new AbortController();
    const fetch = createRetryingFetch({
      maxRetries: 1,
      onRetry: () => controller.abort(new Error('user cancelled')),
    });
    await expect(fetch(url, { signal: controller.signal })).rejects.toThrow('user cancelled');
  });
});
