import { describe, expect, it } from 'vitest';
import { events, useServer } from './helpers.js';

// Reported (review of the runs fix): a turn stopped because another worker took its session over streamed the store's
// sentence "…taken over by process 4242 on build-7…" to the user, live and in the replay: the machine's name and the
// worker's pid are the operator's (the run log keeps them for an admin token).

describe("a shared server's users are not told which process or machine held their session", () => {
  const h = useServer();

  it('a turn stopped by a lost lease or a busy session says so without them, live and replayed', async () => {
    const token = await h.token();
    for (const [code, message] of [
      [
        'lease-lost',
        'the lease on session s was taken over by process 4242 on build-7 at 2026-12-06T20:00:00.000Z',
      ],
      ['session-busy', 'session s is in use by process 4242 on build-7 since 2026-12-06T20:00:00.000Z'],
    ] as const) {
      const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
      const seen: string[] = [];
      h.runtime.script = async ({ handlers }) => {
        // As the graph's runner reports the store's failure: its code and its message.
        handlers.onEvent({ type: 'error', error: { code, message } } as never);
        handlers.onEvent({ type: 'done', status: 'error' });
        return { status: 'error', inputTokens: 0, outputTokens: 0, errorCode: code, error: message };
      };
      const live = await events(
        await h.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'hi' } }),
      );
      const replay = await events(await h.request(`/v1/sessions/${id}/events`, { token }));
      for (const stream of [live, replay]) {
        const error = stream.find((e) => e.type === 'error') as unknown as {
          error: { code: string; message: string };
        };
        expect(error.error.code, code).toBe(code);
        expect(error.error.message).not.toMatch(/4242|build-7/);
        seen.push(error.error.message);
        expect(JSON.stringify(stream)).not.toMatch(/4242|build-7/);
      }
      expect(seen[0]).toMatch(
        code === 'lease-lost'
          ? /^the lease on session s was taken over by another process at /
          : /^session s is in use by another process since /,
      );
    }
  });
});
