import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../src/index.js';
import { events, useServer } from './helpers.js';

describe('request ids and the log', () => {
  const entries: LogEntry[] = [];
  const where: Array<{ where: string; requestId?: string }> = [];
  const h = useServer({
    onLog: (entry) => entries.push(entry),
    onError: (_error, at, context) => where.push({ where: at, ...context }),
  });

  it('every answer has an X-Request-Id, the client’s own when it is a plain token, and each request is logged with it', async () => {
    entries.length = 0;
    const health = await h.request('/v1/health');
    const made = health.headers.get('x-request-id');
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    const given = await h.request('/v1/health', { headers: { 'x-request-id': 'trace-42' } });
    expect(given.headers.get('x-request-id')).toBe('trace-42');
    // Anything else is replaced, so a log line cannot be forged through it.
    const forged = await h.request('/v1/health', { headers: { 'x-request-id': 'a b"level":"error"' } });
    expect(forged.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await h.request('/v1/sessions');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(entries.map((e) => [e.msg, e.level, e.method, e.path, e.status, e.requestId])).toEqual([
      ['request', 'info', 'GET', '/v1/health', 200, made],
      ['request', 'info', 'GET', '/v1/health', 200, 'trace-42'],
      ['request', 'info', 'GET', '/v1/health', 200, forged.headers.get('x-request-id')],
      ['request', 'warn', 'GET', '/v1/sessions', 401, refused.headers.get('x-request-id')],
    ]);
    expect(entries.every((e) => typeof e.durationMs === 'number')).toBe(true);
  });

  it('a turn is logged from start to end with the id of the request that ran it, which the stream’s response carries', async () => {
    const token = await h.token();
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    entries.length = 0;
    const response = await h.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'hi' } });
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    await events(response);
    expect(entries.find((e) => e.msg === 'request')).toMatchObject({
      requestId,
      method: 'POST',
      path: `/v1/sessions/${id}/turns`,
      status: 200,
      userId: 'alice',
    });
    expect(entries.filter((e) => e.msg.startsWith('turn'))).toEqual([
      { level: 'info', msg: 'turn started', requestId, sessionId: id, userId: 'alice' },
      {
        level: 'info',
        msg: 'turn finished',
        requestId,
        sessionId: id,
        userId: 'alice',
        status: 'ok',
        durationMs: expect.any(Number),
        inputTokens: 1,
        outputTokens: 2,
      },
    ]);
  });

  it('a resend with the same Idempotency-Key is logged as a request and joins the turn: one turn logged, not two', async () => {
    const token = await h.token();
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    entries.length = 0;
    const send = () =>
      h.request(`/v1/sessions/${id}/turns`, {
        token,
        json: { prompt: 'hi' },
        headers: { 'Idempotency-Key': 'k-log' },
      });
    const first = await send();
    expect((await events(first)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    const again = await send();
    expect((await events(again)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    const requestIds = entries.filter((e) => e.msg === 'request').map((e) => e.requestId);
    expect(requestIds).toEqual([first.headers.get('x-request-id'), again.headers.get('x-request-id')]);
    expect(entries.filter((e) => e.msg.startsWith('turn')).map((e) => [e.msg, e.requestId])).toEqual([
      ['turn started', first.headers.get('x-request-id')],
      ['turn finished', first.headers.get('x-request-id')],
    ]);
  });

  it('a turn that fails unexpectedly after it started: the client gets the generic error, the log the real one', async () => {
    const token = await h.token();
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    h.runtime.script = async ({ handlers }) => {
      handlers.onEvent({ type: 'token', text: 'the whole answer' });
      throw new Error('Cannot find module session-titles-BI71lisA.js');
    };
    entries.length = 0;
    where.length = 0;
    const response = await h.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'hi' } });
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const streamed = await events(response);
    expect(streamed.find((e) => e.type === 'error')).toEqual({
      type: 'error',
      error: { code: 'internal', message: 'the turn could not be recorded' },
    });
    expect(JSON.stringify(streamed)).not.toContain('session-titles');
    expect(where).toEqual([{ where: `turn of session ${id}`, requestId }]);
    const finished = entries.find((e) => e.msg === 'turn finished');
    expect(finished).toMatchObject({ level: 'error', status: 'error', requestId });
    expect(finished?.error).toContain('Cannot find module session-titles-BI71lisA.js');
  });

  it('an unexpected failure reaches onError with the request id the client got', async () => {
    const token = await h.token();
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    h.runtime.failWith = new Error('boom');
    where.length = 0;
    const response = await h.request(`/v1/sessions/${id}`, { token });
    expect(response.status).toBe(500);
    expect(where).toEqual([
      { where: `GET /v1/sessions/${id}`, requestId: response.headers.get('x-request-id') },
    ]);
  });
});
