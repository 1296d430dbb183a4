import { openStore } from '@birdie/store';
import { afterEach, describe, expect, it } from 'vitest';
import { createSession } from '../src/session-start.js';
import { executeTurn, type TurnEvent } from '../src/turn.js';
import { tempRuntime } from './helpers/temp-runtime.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a turn stopped while it waits for a session another process holds', () => {
  it('ends cancelled with its one done, no run logged and the session untouched', async () => {
    const rt = await tempRuntime({}, cleanups);
    const session = await createSession(rt);
    const other = openStore({ home: rt.io.env.BIRDIE_HOME! });
    cleanups.push(async () => other.close());
    const held = await other.leases.acquire(session.id, { waitMs: 0 });
    const controller = new AbortController();
    const events: TurnEvent[] = [];
    const result = await executeTurn(rt, session, 'hello there', {
      approval: 'never',
      waitMs: 60_000,
      signal: controller.signal,
      handlers: {
        onEvent: (event) => events.push(event),
        decide: async () => undefined,
        // Stopped as soon as it starts waiting (Ctrl+C, SIGTERM).
        onWait: () => controller.abort(new Error('interrupted (SIGTERM)')),
      },
    });
    expect(result).toMatchObject({ status: 'cancelled', inputTokens: 0, outputTokens: 0 });
    expect(result.runId).toBeUndefined();
    expect(events).toEqual([{ type: 'done', status: 'cancelled' }]);
    expect(await other.runs.list({ userId: session.userId, sessionId: session.id })).toEqual([]);
    // The holder keeps the session.
    expect(await other.leases.holder(session.id)).toEqual(held.holder);
  });

  it('a busy session without waiting still throws busy (session-busy)', async () => {
    const rt = await tempRuntime({}, cleanups);
    const session = await createSession(rt);
    const other = openStore({ home: rt.io.env.BIRDIE_HOME! });
    cleanups.push(async () => other.close());
    await other.leases.acquire(session.id, { waitMs: 0 });
    const events: TurnEvent[] = [];
    await expect(
      executeTurn(rt, session, 'hello there', {
        approval: 'never',
        waitMs: 0,
        signal: new AbortController().signal,
        handlers: { onEvent: (event) => events.push(event), decide: async () => undefined },
      }),
      // The runtime's documented `busy` error (README "Errors"), the store's session-busy its cause.
    ).rejects.toMatchObject({
      code: 'busy',
      exitCode: 3,
      cause: { name: 'StoreError', code: 'session-busy' },
    });
    expect(events).toEqual([]);
  });
});
