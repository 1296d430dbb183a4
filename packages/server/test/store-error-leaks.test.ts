import { StoreError } from '@birdie/store/errors';
import { describe, expect, it } from 'vitest';
import { useServer } from './helpers.js';

// A tester found `GET /v1/runs?agent=%00` answered "a value cannot be stored in postgres://birdie@127.0.0.1:55432/birdie
// (…)": any token holder learned the database's address. The client never gets the store's address or file.

type ErrorBody = { error: { code: string; message: string } };

describe('store errors never tell a client where the store is', () => {
  const h = useServer();

  it('a query filter with a control character is 400 invalid-request, refused before the store', async () => {
    const token = await h.token();
    const admin = (await h.store.tokens.create('ops', { admin: true })).token;
    const calls: unknown[] = [];
    const list = h.store.runs.list.bind(h.store.runs);
    h.store.runs.list = (query) => {
      calls.push(query);
      return list(query);
    };
    for (const [path, who, name] of [
      ['/v1/runs?agent=%00', token, 'agent'],
      ['/v1/runs?agent=a%07b', token, 'agent'],
      ['/v1/runs?session=s%00', token, 'session'],
      ['/v1/runs?user=a%00', admin, 'user'],
      ['/v1/tokens?user=a%0Ab', admin, 'user'],
    ] as const) {
      const response = await h.request(path, { token: who });
      expect(response.status, path).toBe(400);
      const body = (await response.json()) as ErrorBody;
      expect(body.error.code, path).toBe('invalid-request');
      expect(body.error.message, path).toMatch(new RegExp(`^invalid query: ${name}: .*control character`));
    }
    expect(calls).toEqual([]);
  });

  it("a value PostgreSQL refuses: 400 without the database's address, which the operator's log keeps", async () => {
    const token = await h.token();
    const refusal = new StoreError(
      'invalid-argument',
      'a value cannot be stored in postgres://birdie@10.1.2.3:55432/birdie (invalid byte sequence for encoding "UTF8": 0x00)',
      {
        cause: Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' }),
      },
    );
    h.store.runs.list = async () => {
      throw refusal;
    };
    const response = await h.request('/v1/runs?agent=helper', { token });
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorBody;
    expect(body.error.code).toBe('invalid-request');
    expect(body.error.message).not.toMatch(/postgres|10\.1\.2\.3|55432|birdie@/);
    expect(body.error.message).toMatch(/cannot be stored/);
    expect(h.errors).toContain(refusal);
  });

  it("a value SQLite refuses: 400 without the database file's path", async () => {
    const token = await h.token();
    const file = `${h.home}/birdie.db`;
    h.store.runs.list = async () => {
      throw new StoreError(
        'invalid-argument',
        `a value is too big to store in ${file} (string or blob too big)`,
        {
          cause: Object.assign(new Error('string or blob too big'), { code: 'SQLITE_TOOBIG' }),
          file,
        },
      );
    };
    const response = await h.request('/v1/runs', { token });
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).not.toContain(h.home);
    expect(text).not.toMatch(/birdie\.db/);
  });

  it("the store's own refusals, which name only what the client sent, still say what is wrong", async () => {
    const token = await h.token();
    const response = await h.request('/v1/runs?since=2020-01-01T00:00:00Z', { token });
    expect(response.status).toBe(200);
    h.store.runs.list = async () => {
      throw new StoreError('invalid-argument', 'since must be a valid Date');
    };
    const refused = (await (await h.request('/v1/runs', { token })).json()) as ErrorBody;
    expect(refused.error).toEqual({ code: 'invalid-request', message: 'since must be a valid Date' });
  });
});
