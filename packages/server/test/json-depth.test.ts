import { describe, expect, it } from 'vitest';
import { useServer } from './helpers.js';

// A 10 kB body of 5,000 nested arrays was `500 RangeError: Maximum call stack size exceeded`: the check of the body's
// strings recursed once per level. A body nested deeper than the API ever needs is a 400 that says so.

type ErrorBody = { error: { code: string; message: string } };
const nested = (depth: number) => `{"enable":${'['.repeat(depth)}${']'.repeat(depth)}}`;

describe('a deeply nested JSON body', () => {
  const h = useServer();

  it('is 400 invalid-request naming the depth, at any depth, and nothing reaches onError', async () => {
    const token = await h.token();
    for (const depth of [5_000, 100_000]) {
      const response = await h.server.fetch(
        new Request('http://localhost/v1/sessions', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: nested(depth),
        }),
      );
      expect(response.status, String(depth)).toBe(400);
      const body = (await response.json()) as ErrorBody;
      expect(body.error.code).toBe('invalid-request');
      expect(body.error.message).toMatch(/nest.*deeper than \d+ levels/);
    }
    expect(h.errors).toEqual([]);
  });

  it('a body nested within the limit is checked as before (a lone surrogate deep inside is still refused)', async () => {
    const token = await h.token();
    const deep = `{"enable":${'['.repeat(50)}"\\ud800"${']'.repeat(50)}}`;
    const response = await h.request('/v1/sessions', {
      token,
      method: 'POST',
      body: deep,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).error.code).toBe('invalid-encoding');
  });
});
