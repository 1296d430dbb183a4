import { afterEach, describe, expect, it } from 'vitest';
import { createSession } from '../src/session-start.js';
import { executeTurn, type TurnEvent } from '../src/turn.js';
import { tempRuntime } from './helpers/temp-runtime.js';

// An embedder's front end asks the user about a call and is still waiting when the turn is cancelled (Ctrl+C, the
// user closed the tab): the turn must end then, not when (or if) the question is answered.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SKILL = `---
name: cleaner
description: Cleans logs
enabled_by_default: true
---
## Tools
### wipe
description: Delete a log
entrypoint: bash:echo "deleted {file}"
approval: required
schema: { type: object, properties: { file: { type: string } }, required: [file] }
`;

describe('a turn cancelled while its approval question is open', () => {
  it('ends cancelled with one done, the run logged cancelled, the lease released and nothing run', async () => {
    const rt = await tempRuntime({ 'skills/cleaner/SKILL.md': SKILL }, cleanups, {}, 'wipe.json');
    const session = await createSession(rt);
    const controller = new AbortController();
    const events: TurnEvent[] = [];
    const asked: Array<{ cwd: string; signal?: AbortSignal }> = [];
    const result = await executeTurn(rt, session, 'wipe it', {
      approval: 'ask',
      waitMs: 0,
      signal: controller.signal,
      handlers: {
        onEvent: (event) => events.push(event),
        // A question nobody answers; the user cancels while it is open.
        decide: (_requests, turn) => {
          asked.push(turn);
          setTimeout(() => controller.abort(), 50);
          return new Promise(() => {});
        },
      },
    });
    expect(result.status).toBe('cancelled');
    expect(events.filter((e) => e.type === 'done')).toEqual([{ type: 'done', status: 'cancelled' }]);
    expect(events.at(-1)).toEqual({ type: 'done', status: 'cancelled' });
    expect(events.some((e) => e.type === 'tool-start')).toBe(false);
    // The front end was given the turn's signal, to close its question.
    expect(asked[0]?.signal).toBe(controller.signal);
    expect(await rt.store.leases.holder(session.id)).toBeUndefined();
    const [run] = await rt.store.runs.list({ userId: session.userId, sessionId: session.id });
    expect(run?.status).toBe('cancelled');
    // The session goes on: its next turn runs.
    const next = await executeTurn(rt, session, 'hello', {
      approval: 'never',
      waitMs: 0,
      signal: new AbortController().signal,
      handlers: { onEvent: () => {}, decide: async () => undefined },
    });
    expect(next.status).toBe('ok');
  });
});
