import { afterEach, describe, expect, it } from 'vitest';
import { createSession, executeTurn, isRuntimeError, openRuntime, type Runtime } from '../src/index.js';
import { tempRuntime } from './helpers/temp-runtime.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A runtime over the same home and user as `base`, opened with `flags` (README "Flags"). */
async function reopen(base: Runtime, flags: Record<string, unknown>): Promise<Runtime> {
  const rt = await openRuntime(base.io, flags as never);
  cleanups.push(() => rt.close());
  return rt;
}

describe('openRuntime applies its documented approval and wait flags', () => {
  it.each([
    [{ approval: 'maybe' }, '--approval must be ask, always or never, got "maybe"'],
    [{ approval: 42 }, '--approval must be ask, always or never, got "42"'],
    [{ wait: 'soon' }, '--wait must be a number of seconds (0 or more), got "soon"'],
  ])('refuses %j with a UsageError', async (flags, message) => {
    const base = await tempRuntime({}, cleanups);
    const thrown = await openRuntime(base.io, flags as never).catch((error: unknown) => error);
    expect(isRuntimeError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'usage', exitCode: 2, message });
  });

  it('exposes the mode and the wait, and executeTurn defaults to them', async () => {
    const base = await tempRuntime({}, cleanups);
    expect([base.approval, base.waitMs]).toEqual(['ask', 0]);
    const rt = await reopen(base, { approval: 'never', wait: '2.5' });
    expect([rt.approval, rt.waitMs]).toEqual(['never', 2500]);
    const session = await createSession(rt);
    // Without approval and waitMs of its own, the turn runs under the runtime's.
    const result = await executeTurn(rt, session, 'shout hello', {
      signal: new AbortController().signal,
      handlers: { onEvent: () => {}, decide: async () => undefined },
    });
    expect(result.status).toBe('ok');
  });
});
