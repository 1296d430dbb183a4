import type { Session } from '@birdie/store';
import { afterEach, describe, expect, it } from 'vitest';
import { historyOf } from '../src/history.js';
import type { Runtime } from '../src/runtime.js';
import { historyTokens, sessionRecap } from '../src/session-recap.js';
import { createSession } from '../src/session-start.js';
import { executeTurn } from '../src/turn.js';
import { tempRuntime } from './helpers/temp-runtime.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A new session that had one exchange (the scripted model answers "Plain answer."). */
async function sessionWithOneTurn(rt: Runtime): Promise<Session> {
  const session = await createSession(rt);
  await executeTurn(rt, session, 'hello there', {
    approval: 'never',
    waitMs: 1000,
    signal: new AbortController().signal,
    handlers: { onEvent: () => {}, decide: async () => undefined },
  });
  return session;
}

describe("a session's recap", () => {
  it('is empty with no context for a new session', async () => {
    const rt = await tempRuntime({}, cleanups);
    const session = await createSession(rt);
    expect(await sessionRecap(rt, session.id, rt.modelName)).toEqual({ messages: [], contextTokens: 0 });
  });

  it('holds the messages of its turns and the tokens they take', async () => {
    const rt = await tempRuntime({}, cleanups);
    const session = await sessionWithOneTurn(rt);
    const recap = await sessionRecap(rt, session.id, rt.modelName);
    expect(recap.messages.map((m) => m.text)).toEqual(['hello there', 'Plain answer.']);
    expect(recap.contextTokens).toBeGreaterThan(0);
    expect(recap.contextTokens).toBe(
      await historyTokens(await historyOf(rt.agent, session.id), rt.modelName),
    );
  });

  it('counts a compacted history from its last summary on', async () => {
    const rt = await tempRuntime({}, cleanups);
    const session = await sessionWithOneTurn(rt);
    const history = await historyOf(rt.agent, session.id);
    const whole = await historyTokens(history, rt.modelName);
    const summary = { messages: 1, summary: 'x', at: new Date().toISOString() } as never;
    const compacted = await historyTokens({ ...history, compactions: [summary] }, rt.modelName);
    expect(compacted).toBeLessThan(whole);
  });
});
