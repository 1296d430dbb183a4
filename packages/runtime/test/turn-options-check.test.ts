import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isRuntimeError } from '../src/errors.js';
import { openRuntime } from '../src/runtime.js';
import { createSession } from '../src/session-start.js';
import { executeTurn, type TurnOptions } from '../src/turn.js';
import { userIo } from './helpers/temp-home.js';
import { tempRuntime } from './helpers/temp-runtime.js';

// Reported by an embedder calling from plain JavaScript: `executeTurn` without `signal` threw `TypeError: Cannot read
// properties of undefined (reading 'aborted')` after the model had answered, and left its run `running` in the log;
// without `handlers` a TypeError too; `openRuntime(io)` without flags ("all optional") a TypeError.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const handlers = { onEvent: () => {}, decide: async () => undefined };

describe('executeTurn with options it cannot run with', () => {
  it('is a usage error naming the option, before anything is logged or run', async () => {
    const rt = await tempRuntime({}, cleanups);
    const session = await createSession(rt);
    for (const [options, named] of [
      [{ approval: 'never', handlers }, 'signal'],
      [{ approval: 'never', handlers, signal: 'stop' }, 'signal'],
      [{ approval: 'never', signal: new AbortController().signal }, 'handlers'],
      [
        { approval: 'never', signal: new AbortController().signal, handlers: { onEvent: () => {} } },
        'decide',
      ],
    ] as const) {
      const error = await executeTurn(rt, session, 'hello', options as unknown as TurnOptions).catch(
        (e: unknown) => e,
      );
      expect(isRuntimeError(error), String(error)).toBe(true);
      expect((error as Error).name).toBe('UsageError');
      expect((error as Error).message).toContain(named);
    }
    expect(await rt.store.runs.list({ userId: session.userId, sessionId: session.id })).toEqual([]);
    expect(await rt.store.leases.holder(session.id)).toBeUndefined();
  });

  it('openRuntime without flags opens with the defaults', async () => {
    const { makeTempDir } = await import('@birdie/test-utils');
    const dir = await makeTempDir('birdie-rt-');
    cleanups.push(dir.cleanup);
    const rt = await openRuntime(
      userIo(dir.path, dir.path, {
        PATH: process.env.PATH,
        LLM_VENDOR: 'scripted',
        LLM_SCRIPT: fileURLToPath(new URL('./fixtures/shout.json', import.meta.url)),
      }),
      undefined as never,
    );
    cleanups.push(() => rt.close());
    expect(rt.approval).toBe('ask');
    expect(rt.userId).toBe('ada');
  });
});
