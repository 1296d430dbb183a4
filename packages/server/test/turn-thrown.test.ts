import { StoreError } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { events, useServer } from './helpers.js';

// A turn that throws once it holds the session (its `session` event is out): the store cannot start or log its run.
// Its stream still ends as the README promises: the error, then one `done`, then `result`.
describe('a turn that throws after its session event', () => {
  const h = useServer();

  it('ends its stream with error, done and result, all with status error', async () => {
    const token = await h.token();
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    h.runtime.script = async ({ handlers }) => {
      handlers.onEvent({ type: 'token', text: 'hi' });
      throw new StoreError('disk-full', 'the disk holding birdie.db is full (0 B free)');
    };
    const response = await h.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'hi' } });
    expect(response.status).toBe(200);
    const list = await events(response);
    expect(list.map((e) => e.type)).toEqual(['session', 'token', 'error', 'done', 'result']);
    expect(list.slice(2)).toEqual([
      {
        type: 'error',
        error: {
          code: 'unavailable',
          message: 'the store cannot take this request now (disk-full); try again later',
        },
      },
      { type: 'done', status: 'error' },
      { type: 'result', status: 'error', session: id, inputTokens: 0, outputTokens: 0 },
    ]);
    // The same end for whoever follows the turn afterwards.
    const replay = await events(await h.request(`/v1/sessions/${id}/events`, { token }));
    expect(replay.map((e) => e.type)).toEqual(['session', 'token', 'error', 'done', 'result']);
  });
});
