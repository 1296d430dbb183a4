import type { ApiToken } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { createMcpEndpoint } from '../src/mcp-endpoint.js';
import { useServer } from './helpers.js';

// `birdie mcp --http`'s endpoint: the API's own bearer-token check in front of whatever the MCP transport answers.

describe('createMcpEndpoint', () => {
  const h = useServer();

  function endpoint(rateLimit?: { requests: number; perMs: number }) {
    const seen: ApiToken[] = [];
    const errors: unknown[] = [];
    const mcp = createMcpEndpoint({
      store: h.store,
      ...(rateLimit ? { rateLimit } : {}),
      onError: (error) => errors.push(error),
      async handle(request, token) {
        seen.push(token);
        if (request.headers.get('x-fail')) throw new Error('boom');
        return new Response(`hello ${token.userId}`);
      },
    });
    const post = (headers: Record<string, string>, path = '/mcp') =>
      mcp.fetch(new Request(`http://localhost${path}`, { method: 'POST', headers, body: '{}' }));
    return { seen, errors, post };
  }

  it('refuses a missing, wrong or revoked token with the API 401 and never calls the handler', async () => {
    const { seen, post } = endpoint();
    const { token, record } = await h.store.tokens.create('alice');
    await h.store.tokens.revoke(record.id);
    const cases: Record<string, string>[] = [
      {},
      { authorization: 'Bearer nope' },
      { authorization: `Bearer ${token}` },
    ];
    for (const headers of cases) {
      const response = await post(headers);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    expect(seen).toEqual([]);
  });

  it("hands a verified request to the handler with the token's user; other paths are 404; a failure is a bare 500", async () => {
    const { seen, errors, post } = endpoint();
    const token = await h.token('bob');
    const response = await post({ authorization: `Bearer ${token}` });
    expect(await response.text()).toBe('hello bob');
    expect(seen.map((t) => t.userId)).toEqual(['bob']);
    expect((await post({ authorization: `Bearer ${token}` }, '/v1/sessions')).status).toBe(404);
    const failed = await post({ authorization: `Bearer ${token}`, 'x-fail': '1' });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: { code: 'internal', message: 'internal error' } });
    expect(errors).toHaveLength(1);
  });

  it('limits requests per token (429 with Retry-After)', async () => {
    const { post } = endpoint({ requests: 1, perMs: 60_000 });
    const token = await h.token();
    expect((await post({ authorization: `Bearer ${token}` })).status).toBe(200);
    const limited = await post({ authorization: `Bearer ${token}` });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
