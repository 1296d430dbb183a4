import { describe, expect, it } from 'vitest';
import { useServer } from './helpers.js';

// `POST /v1/sessions` took titles `PATCH` refuses ("", "   ", two lines), and a NUL was refused for the wrong reason
// ("at most 200 characters"). One rule for both: 1-200 characters on one line, no control characters, not blank.

type ErrorBody = { error: { code: string; message: string } };

const REFUSED: Array<[string, RegExp]> = [
  ['', /1-200 characters/],
  ['   ', /blank/],
  ['line1\nline2', /one line without control characters/],
  ['a\u0000b', /one line without control characters/],
  ['tab\there', /one line without control characters/],
  ['x'.repeat(201), /1-200 characters/],
];

describe('a session title', () => {
  const h = useServer();

  it('is refused alike by POST /v1/sessions and PATCH /v1/sessions/{id}, with the reason', async () => {
    const token = await h.token();
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    for (const [title, reason] of REFUSED) {
      for (const [method, path] of [
        ['POST', '/v1/sessions'],
        ['PATCH', `/v1/sessions/${id}`],
      ] as const) {
        const response = await h.request(path, { token, method, json: { title } });
        const where = `${method} ${JSON.stringify(title)}`;
        expect(response.status, where).toBe(400);
        const body = (await response.json()) as ErrorBody;
        expect(body.error.code, where).toBe('invalid-request');
        expect(body.error.message, where).toMatch(/^invalid request body: title: /);
        expect(body.error.message, where).toMatch(reason);
      }
    }
    expect((await h.store.sessions.list('alice')).length).toBe(1);
  });

  it('of 1-200 characters on one line is taken by both', async () => {
    const token = await h.token();
    const made = await h.request('/v1/sessions', { token, json: { title: 'x'.repeat(200) } });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };
    const renamed = await h.request(`/v1/sessions/${id}`, {
      token,
      method: 'PATCH',
      json: { title: 'Ü ok' },
    });
    expect(renamed.status).toBe(200);
  });

  // Reported: the length was counted in UTF-16 units, so 101 emoji were refused as "over 200 characters".
  it('counts characters, not UTF-16 units: 200 emoji are a title, 201 are not', async () => {
    const token = await h.token();
    const made = await h.request('/v1/sessions', { token, json: { title: '🦉'.repeat(200) } });
    expect(made.status).toBe(201);
    expect(((await made.json()) as { title: string }).title).toBe('🦉'.repeat(200));
    const over = await h.request('/v1/sessions', { token, json: { title: '🦉'.repeat(201) } });
    expect(over.status).toBe(400);
    expect(((await over.json()) as { error: { message: string } }).error.message).toContain(
      'a session title is 1-200 characters',
    );
  });

  it('the store keeps to the same rule, whoever calls it', async () => {
    for (const [title, reason] of REFUSED)
      await expect(h.store.sessions.create('alice', { title }), JSON.stringify(title)).rejects.toThrow(
        reason,
      );
  });
});
