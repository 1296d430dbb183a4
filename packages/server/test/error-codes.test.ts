import { describe, expect, it } from 'vitest';
import { events, gate, useServer } from './helpers.js';

type ErrorBody = { error: { code: string; message: string } };

describe('the error codes the README documents', () => {
  const h = useServer();

  it('approvals while a turn of the session runs are 409 session-busy (not nothing-pending), here or elsewhere', async () => {
    const token = await h.token();
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    const release = gate();
    const started = gate();
    h.runtime.script = async ({ handlers }) => {
      started.open();
      await release.promise;
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 0, outputTokens: 0 };
    };
    const running = await h.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'slow' } });
    await started.promise;
    const approvals = { decisions: { call_1: { type: 'approve' } } };
    for (const server of [h.server, h.worker().server]) {
      const response = await server.fetch(
        new Request(`http://localhost/v1/sessions/${id}/approvals`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(approvals),
        }),
      );
      expect(response.status).toBe(409);
      expect(((await response.json()) as ErrorBody).error).toEqual({
        code: 'session-busy',
        message: `session ${id} is busy: another turn is running on it; try again when it ends`,
      });
    }
    release.open();
    expect((await events(running)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    // Once it ended, with nothing pending: nothing-pending.
    const after = await h.request(`/v1/sessions/${id}/approvals`, { token, json: approvals });
    expect(((await after.json()) as ErrorBody).error.code).toBe('nothing-pending');
  });

  it('?parent= takes exactly the run ids its documented pattern allows; any other is "invalid query: parent"', async () => {
    const token = await h.token();
    const doc = (await (await h.request('/v1/openapi.json')).json()) as {
      paths: Record<string, { get: { parameters: Array<{ name: string; schema: unknown }> } }>;
    };
    const schema = JSON.stringify(
      doc.paths['/v1/runs']!.get.parameters.find((p) => p.name === 'parent')!.schema,
    );
    const pattern = new RegExp(/"pattern":"([^"]+)"/.exec(schema)![1]!.replaceAll('\\\\', '\\'));
    for (const parent of [
      '1',
      '900719925474099',
      '999999999999999',
      '9999999999999999',
      '9007199254740993',
      '0',
    ]) {
      const response = await h.request(`/v1/runs?parent=${parent}`, { token });
      if (pattern.test(parent)) expect(response.status, parent).toBe(200);
      else {
        expect(response.status, parent).toBe(400);
        expect(((await response.json()) as ErrorBody).error.message, parent).toMatch(
          /^invalid query: parent: /,
        );
      }
    }
    expect(pattern.test('9999999999999999')).toBe(false);
  });
});

describe('error messages and what the request sent', () => {
  const h = useServer();

  it('a 5,000-character id or path is shortened where an error message repeats it, keeping its ends', async () => {
    const token = await h.token();
    const long = `${'a'.repeat(4990)}ZZ`;
    for (const [path, code] of [
      [`/v1/sessions/${long}`, 'not-found'],
      [`/v1/sessions/${long}/history`, 'not-found'],
      [`/v1/tasks/${long}`, 'not-found'],
    ] as const) {
      const response = await h.request(path, { token });
      const body = (await response.json()) as ErrorBody;
      expect(body.error.code, path.slice(0, 30)).toBe(code);
      expect(body.error.message.length, path.slice(0, 30)).toBeLessThan(400);
      expect(body.error.message).toMatch(/a…\[\d,\d{3} more characters\]…a+ZZ/);
    }
    const agent = await h.request('/v1/sessions', { token, json: { agent: long } });
    const refused = (await agent.json()) as ErrorBody;
    expect(refused.error.message.length).toBeLessThan(400);
    // Short values are left whole.
    const short = (await (await h.request('/v1/sessions/nope', { token })).json()) as ErrorBody;
    expect(short.error.message).toContain('nope');
    expect(short.error.message).not.toContain('more characters');
  });
});

describe('the run log filters', () => {
  const h = useServer();

  // Reported by an operator: `?user=`, `?user=a%20b` and `?session=` answered a bare 404 "not found" (a user's token
  // a 403 for `?user=`, though it names nobody else), where `/v1/tokens?user=` says what is wrong.
  it('a user or session filter that is no id at all is a 400 naming the filter', async () => {
    const admin = (await h.store.tokens.create('ops', { admin: true })).token;
    const user = await h.token();
    for (const [query, token, filter] of [
      ['user=', admin, 'user'],
      ['user=a%20b', admin, 'user'],
      ['user=', user, 'user'],
      ['session=', user, 'session'],
      ['session=nope', user, 'session'],
    ] as const) {
      const response = await h.request(`/v1/runs?${query}`, { token });
      expect(response.status, query).toBe(400);
      const { error } = (await response.json()) as ErrorBody;
      expect(error.code, query).toBe('invalid-request');
      expect(error.message, query).toContain(`invalid query: ${filter}: invalid ${filter} id`);
    }
  });
});

describe('request bodies', () => {
  const h = useServer();

  // Reported by an operator: `POST /v1/sessions {"enable":["filesystem"],"disable":["filesystem"]}` made a session
  // with filesystem enabled, `disable` dropped without a word (creating takes no `disable`); `{"prompt":"hi","foo":1}`
  // likewise. And an empty prompt was refused twice in one message.
  it('a field the endpoint does not take is a 400 naming it; an empty prompt is said once', async () => {
    const token = await h.token();
    const made = await h.request('/v1/sessions', { token, json: { enable: [], disable: ['filesystem'] } });
    expect(made.status).toBe(400);
    expect(((await made.json()) as ErrorBody).error.message).toContain('"disable"');
    expect(await h.store.sessions.list('alice')).toEqual([]);
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    for (const [path, json, key] of [
      [`/v1/sessions/${id}/turns`, { prompt: 'hi', foo: 1 }, '"foo"'],
      [`/v1/sessions/${id}/approvals`, { decisions: {}, approve: true }, '"approve"'],
    ] as const) {
      const response = await h.request(path, { token, json });
      expect(response.status, path).toBe(400);
      expect(((await response.json()) as ErrorBody).error.message, path).toContain(key);
    }
    const renamed = await h.request(`/v1/sessions/${id}`, {
      token,
      method: 'PATCH',
      json: { title: 'x', name: 'y' },
    });
    expect(renamed.status).toBe(400);
    const empty = (await (
      await h.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: '' } })
    ).json()) as ErrorBody;
    // Reported: a body that is valid JSON but not what the endpoint takes was called "invalid json"; the JSON was fine.
    expect(empty.error.message).toBe('invalid request body: prompt: must not be empty');
    const malformed = (await (
      await h.request(`/v1/sessions/${id}/turns`, {
        token,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"prompt": ',
      })
    ).json()) as ErrorBody;
    expect(malformed.error.message).toBe('the body is not valid JSON');
  });
});
