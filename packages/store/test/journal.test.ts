import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store, StoreError } from '../src/index.js';
import { spawnScript, tempHome } from './helpers.js';

let home: ReturnType<typeof tempHome>;
let store: Store;
beforeEach(() => {
  home = tempHome();
  store = openStore({ home: home.dir });
});
afterEach(() => {
  store.close();
  home.cleanup();
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return (error as StoreError).code;
  }
  return undefined;
}

describe('the tool journal', () => {
  it('records start and end per call id; a started call of an ended run is "result unknown"', () => {
    const s = store.sessions.create('alice');
    const run = store.runs.start({ sessionId: s.id, userId: 'alice' });
    const journal = store.runs.journal(run);
    journal.started({ id: 'call_a', name: 'run_bash', skill: 'shell' });
    journal.started({ id: 'call_b', name: 'fetch' });
    journal.finished({
      id: 'call_a',
      ok: false,
      durationMs: 7,
      truncated: false,
      error: 'token sk-abcdefghijklmnopqrstuv1234',
    });

    let [logged] = store.runs.list({ userId: 'alice' });
    expect(logged!.toolCalls).toMatchObject([
      {
        callId: 'call_a',
        name: 'run_bash',
        skill: 'shell',
        status: 'error',
        resultUnknown: false,
        durationMs: 7,
        error: 'token [redacted]',
      },
      { callId: 'call_b', name: 'fetch', status: 'started', resultUnknown: false },
    ]);
    expect(logged!.toolCalls[1]!.durationMs).toBeUndefined();
    expect(logged!.toolCalls[1]!.endedAt).toBeUndefined();

    store.runs.finish(run, { status: 'interrupted' });
    [logged] = store.runs.list({ userId: 'alice' });
    expect(logged!.toolCalls[1]).toMatchObject({ status: 'started', resultUnknown: true });

    expect(
      codeOf(() => journal.finished({ id: 'call_never', ok: true, durationMs: 1, truncated: false })),
    ).toBe('not-found');
    expect(codeOf(() => journal.started({ id: '', name: 'x' }))).toBe('invalid-argument');
    expect(codeOf(() => journal.started({ id: 'a\0b', name: 'x' }))).toBe('invalid-argument');
  });

  it('startedAmong answers for the whole session, across runs, and only for it', () => {
    const s = store.sessions.create('alice');
    const otherSession = store.sessions.create('alice');
    const first = store.runs.journal(store.runs.start({ sessionId: s.id, userId: 'alice' }));
    first.started({ id: 'call_1', name: 'x' });
    first.started({ id: 'call_2', name: 'x' });
    first.finished({ id: 'call_2', ok: true, durationMs: 1, truncated: false });
    store.runs
      .journal(store.runs.start({ sessionId: otherSession.id, userId: 'alice' }))
      .started({ id: 'call_3', name: 'x' });

    const second = store.runs.journal(store.runs.start({ sessionId: s.id, userId: 'alice' }));
    expect(second.startedAmong(['call_1', 'call_2', 'call_3', 'call_4'])).toEqual(
      new Set(['call_1', 'call_2']),
    );
    expect(second.startedAmong([])).toEqual(new Set());
    // Which of them ended, and how: call_2 succeeded; call_1 never reported back.
    expect(second.finishedAmong(['call_1', 'call_2', 'call_3'])).toEqual(new Map([['call_2', true]]));
    // A call started again in a later run (a retry) is one row per run.
    second.started({ id: 'call_1', name: 'x' });
    second.started({ id: 'call_1', name: 'x' });
    const runs = store.runs.list({ userId: 'alice', sessionId: s.id });
    expect(runs.map((r) => r.toolCalls.map((t) => t.callId))).toEqual([['call_1'], ['call_1', 'call_2']]);
  });

  it('a started record survives a SIGKILL right after the effect: the call is known to have started', async () => {
    const s = store.sessions.create('alice');
    const effect = join(home.dir, 'effect.txt');
    const child = spawnScript(
      home.dir,
      `
      import { writeFileSync } from 'node:fs';
      const { openStore } = await import(STORE);
      const [home, sessionId, effect] = process.argv.slice(2);
      const store = openStore({ home });
      await store.leases.acquire(sessionId);
      const journal = store.runs.journal(store.runs.start({ sessionId, userId: 'alice' }));
      journal.started({ id: 'call_effect', name: 'run_bash' });
      writeFileSync(effect, 'done');
      console.log('effect');
      setInterval(() => {}, 1000);
    `,
      [home.dir, s.id, effect],
    );
    await child.waitFor((l) => l === 'effect');
    child.child.kill('SIGKILL');
    await child.exited;
    expect(existsSync(effect)).toBe(true);

    const lease = await store.leases.acquire(s.id);
    const journal = store.runs.journal(store.runs.start({ sessionId: s.id, userId: 'alice' }));
    expect(journal.startedAmong(['call_effect', 'call_other'])).toEqual(new Set(['call_effect']));
    const killed = store.runs.list({ userId: 'alice' })[1]!;
    expect(killed.status).toBe('interrupted');
    expect(killed.toolCalls).toMatchObject([
      { callId: 'call_effect', status: 'started', resultUnknown: true },
    ]);
    lease.release();
  });
});
