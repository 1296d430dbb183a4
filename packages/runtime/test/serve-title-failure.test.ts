import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from '@birdie/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openServeRuntime } from '../src/server-runtime.js';

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
    const home = await mkdtemp(join(tmpdir(), 'birdie-serve-title-'));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    const script = join(home, 'script.json');
    await writeFile(script, JSON.stringify({ replies: [{ text: 'Hello there.' }] }));
    const io = {
      env: {
        PATH: process.env.PATH,
        HOME: home,
        BIRDIE_HOME: home,
        LLM_VENDOR: 'scripted',
        LLM_SCRIPT: script,
      },
      cwd: home,
      stderr: process.stderr,
    };
    const { rt, runtime, workspaces, limits } = await openServeRuntime(io, {});
    cleanups.push(() => rt.close());
    const errors: unknown[] = [];
    const server = createServer({
      runtime,
      workspaces,
      limits,
      webRoot: false,
      onError: (e) => errors.push(e),
    });
    cleanups.push(() => server.close({ graceMs: 0 }));
    const { token } = await rt.store.tokens.create('alice');
    const call = async (method: string, path: string, body?: unknown) =>
      (
        await server.fetch(
          new Request(`http://birdie.test${path}`, {
            method,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          }),
        )
      ).text();
    const { id } = JSON.parse(await call('POST', '/v1/sessions', {})) as { id: string };
    const stream = await call('POST', `/v1/sessions/${id}/turns`, { prompt: 'hi' });
    expect(stream).not.toContain('event: error');
    const result = JSON.parse(stream.split('event: result\ndata: ')[1]!.split('\n')[0]!) as Record<
      string,
      unknown
    >;
    expect(result).toMatchObject({ status: 'ok' });
    expect(result.outputTokens).toBeGreaterThan(0);
    const { runs } = JSON.parse(await call('GET', '/v1/runs')) as { runs: Array<{ status: string }> };
    expect(runs.map((r) => r.status)).toEqual(['ok']);
    // The session is not left leased: the next turn runs.
    expect(await call('POST', `/v1/sessions/${id}/turns`, { prompt: 'again' })).toContain('event: result');
    expect(errors).toEqual([]);
  }, 60_000);
});
