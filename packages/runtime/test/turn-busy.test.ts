import { afterEach, describe, expect, it } from 'vitest';
import { createSession, executeTurn, isRuntimeError, openRuntime, useSession } from '../src/index.js';
import { compactSession } from '../src/session-compact.js';
import { tempRuntime } from './helpers/temp-runtime.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a session in use by another runtime', () => {
  it('executeTurn throws the documented RuntimeError busy (exit 3), the store error as its cause', async () => {
    const rt1 = await tempRuntime({}, cleanups);
    // "Another process", as far as leases go: a second runtime over the same home.
    const rt2 = await openRuntime(rt1.io, {});
    cleanups.push(() => rt2.close());
    const session = await createSession(rt1);
    const lease = await rt1.store.leases.acquire(session.id, { waitMs: 0 });
    cleanups.push(() => lease.release());
    const same = await useSession(rt2, session.id);
    const thrown = await executeTurn(rt2, same, 'hi', {
      approval: 'never',
      signal: new AbortController().signal,
      waitMs: 0,
      handlers: { onEvent: () => {}, decide: async () => undefined },
    }).catch((error: unknown) => error);
    expect(isRuntimeError(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      code: 'busy',
      exitCode: 3,
      message: expect.stringContaining('pass --wait SECONDS'),
      cause: { name: 'StoreError', code: 'session-busy' },
    });
  });

  it('compactSession says the same', async () => {
    const rt1 = await tempRuntime({}, cleanups);
    const rt2 = await openRuntime(rt1.io, {});
    cleanups.push(() => rt2.close());
    const session = await createSession(rt1);
    const lease = await rt1.store.leases.acquire(session.id, { waitMs: 0 });
    cleanups.push(() => lease.release());
    const thrown = await compactSession(rt2, session.id, { waitMs: 0 }).catch((error: unknown) => error);
    expect(isRuntimeError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'busy', exitCode: 3 });
  });
});
