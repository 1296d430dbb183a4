import { afterEach, describe, expect, it, vi } from 'vitest';
import { servedRuntime } from './helpers/served-runtime.js';

// A tester rebuilt the CLI under a running `birdie serve`: the lazily imported titling module was gone, and a turn whose
// answer had been streamed and whose run was logged `ok` ended `error` "the turn could not be recorded", 0 tokens. The
// title step breaking (here: it throws at once, as a module that does not load does) must never fail the turn.
vi.mock(import('../src/session-titles.js'), async (original) => ({
  ...(await original()),
  titleAfterTurn: () => {
    throw new Error('Cannot find module session-titles-BI71lisA.js');
  },
}));

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a title step that fails', () => {
  it('leaves the turn ok, with its tokens, in the stream and the run log alike', async () => {
    const errors: unknown[] = [];
    const { call } = await servedRuntime({
      replies: [{ text: 'Hello there.' }],
      onError: (e) => errors.push(e),
      cleanups,
    });
    const { id } = JSON.parse((await call('POST', '/v1/sessions', {})).text) as { id: string };
    const stream = (await call('POST', `/v1/sessions/${id}/turns`, { prompt: 'hi' })).text;
    expect(stream).not.toContain('event: error');
    const result = JSON.parse(stream.split('event: result\ndata: ')[1]!.split('\n')[0]!) as Record<
      string,
      unknown
    >;
    expect(result).toMatchObject({ status: 'ok' });
    expect(result.outputTokens).toBeGreaterThan(0);
    const { runs } = JSON.parse((await call('GET', '/v1/runs')).text) as { runs: Array<{ status: string }> };
    expect(runs.map((r) => r.status)).toEqual(['ok']);
    // The session is not left leased: the next turn runs.
    expect((await call('POST', `/v1/sessions/${id}/turns`, { prompt: 'again' })).text).toContain(
      'event: result',
    );
    expect(errors).toEqual([]);
  }, 60_000);
});
