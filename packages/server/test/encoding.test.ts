import { describe, expect, it } from 'vitest';
import { useServer } from './helpers.js';

// Issue 27, defect 5: a body that is not valid UTF-8 was decoded with U+FFFD and ran a turn with "\ufffd\ufffd".
describe('request bodies must be valid UTF-8 (every JSON body, one check)', () => {
  const h = useServer();

  const raw = (path: string, token: string, bytes: Uint8Array) =>
    h.request(path, {
      method: 'POST',
      token,
      body: bytes,
      headers: { 'content-type': 'application/json' },
    });
  const bytesOf = (...parts: Array<string | number[]>) =>
    new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...Buffer.from(p, 'utf8')] : p)));

  it('refuses {"prompt":"\\xff\\xfe"} as raw bytes with 400 invalid-encoding, and runs no turn', async () => {
    const token = await h.token();
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    let ran = 0;
    h.runtime.script = async ({ handlers }) => {
      ran += 1;
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 0, outputTokens: 0 };
    };
    const response = await raw(`/v1/sessions/${id}/turns`, token, bytesOf('{"prompt":"', [0xff, 0xfe], '"}'));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { code: 'invalid-encoding', message: 'the request body is not valid UTF-8' },
    });
    expect(ran).toBe(0);
    expect(await h.store.runs.list({ userId: 'alice', sessionId: id, limit: 10 })).toEqual([]);
  });

  it('refuses it on every endpoint that takes a body; valid UTF-8 beyond ASCII passes', async () => {
    const token = await h.token();
    const bad = bytesOf('{"title":"caf', [0xc3], '"}'); // a truncated two-byte sequence
    const created = await raw('/v1/sessions', token, bad);
    expect(created.status).toBe(400);
    expect(((await created.json()) as { error: { code: string } }).error.code).toBe('invalid-encoding');
    const good = await raw('/v1/sessions', token, bytesOf('{"title":"café ☕"}'));
    expect(good.status).toBe(201);
    const session = (await good.json()) as { id: string; title: string };
    expect(session.title).toBe('café ☕');
    h.runtime.pending = [
      { id: 'call_1', digest: 'd', tool: 'shell', args: {}, description: 'x', reason: 'raw-command' },
    ];
    const approvals = await raw(
      `/v1/sessions/${session.id}/approvals`,
      token,
      bytesOf('{"decisions":{"call_1":{"type":"reject","message":"', [0xed, 0xa0, 0x80], '"}}}'),
    );
    expect(approvals.status).toBe(400);
    expect(((await approvals.json()) as { error: { code: string } }).error.code).toBe('invalid-encoding');
  });

  it('refuses a lone surrogate written as a JSON escape (it would reach the store as U+FFFD too)', async () => {
    const token = await h.token();
    const response = await raw('/v1/sessions', token, bytesOf('{"title":"a\\ud800b"}'));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid-encoding');
    // A pair written as escapes is one well-formed character.
    const pair = await raw('/v1/sessions', token, bytesOf('{"title":"\\ud83d\\ude00"}'));
    expect(pair.status).toBe(201);
    expect(((await pair.json()) as { title: string }).title).toBe('😀');
  });
});
