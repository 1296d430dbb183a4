import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '@birdie/store';
import { afterEach, describe, expect, it } from 'vitest';
import { createSession } from '../src/session-start.js';
import { executeTurn } from '../src/turn.js';
import { tempRuntime } from './helpers/temp-runtime.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// better-sqlite3 as the store loads it: to expire a lease the way a paused process lets it expire.
const Database = createRequire(fileURLToPath(import.meta.resolve('@birdie/store')))('better-sqlite3') as new (
  file: string,
) => { prepare(sql: string): { run(...params: unknown[]): unknown }; close(): void };

describe('a turn whose lease another process took over', () => {
  it("ends with lease-lost in its result, adding nothing to the session's totals", async () => {
    const rt = await tempRuntime({}, cleanups);
    const home = rt.io.env.BIRDIE_HOME!;
    const session = await createSession(rt);
    const other = openStore({ home });
    cleanups.push(() => other.close());
    let taker: Awaited<ReturnType<typeof other.leases.acquire>> | undefined;
    // Just before the turn's end is written, this process "pauses" past its lease and another one takes over.
    const finish = rt.store.runs.finish.bind(rt.store.runs);
    rt.store.runs.finish = async (runId, r) => {
      const db = new Database(join(home, 'birdie.db'));
      db.prepare('UPDATE leases SET expires_at = 0 WHERE session_id = ?').run(session.id);
      db.close();
      taker = await other.leases.acquire(session.id);
      return finish(runId, r);
    };
    const result = await executeTurn(rt, session, 'hello there', {
      approval: 'never',
      waitMs: 1000,
      signal: new AbortController().signal,
      handlers: { onEvent: () => {}, decide: async () => undefined },
    });
    expect(result).toMatchObject({ status: 'error', errorCode: 'lease-lost', answer: 'Plain answer.' });
    expect(result.error).toContain(`the lease on session ${session.id} was taken over by process`);
    expect(await other.sessions.get(session.id, session.userId)).toMatchObject({ turns: 0, inputTokens: 0 });
    const [run] = await other.runs.list({ userId: session.userId, sessionId: session.id });
    expect(run).toMatchObject({
      status: 'died',
      error: expect.stringContaining('stopped holding the session'),
    });
    // The new holder keeps the session; the old one's release changed nothing.
    expect(await other.leases.holder(session.id)).toEqual(taker?.holder);
  });
});
