import { openStore, type Store } from '@birdie/store';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { heldTasks } from '../src/held-tasks.js';

// birdie serve holds a recurring task of a user whose every API token was revoked once it refused one firing of it
// since the revocation: read from the tokens and the run log, so every worker and a restarted server agree.

let store: Store;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  const dir = await makeTempDir();
  cleanup = dir.cleanup;
  store = openStore({ home: dir.path });
});

afterEach(async () => {
  store.close();
  await cleanup();
});

/** A firing of `task` that birdie serve refused: a `rejected` run named as the run log names a task's runs. */
async function refused(userId: string, task: number): Promise<number> {
  const session = await store.sessions.create(userId);
  const run = await store.runs.start({ sessionId: session.id, userId, trigger: `task ${task} (every 1m)` });
  await store.runs.finish(run, { status: 'rejected', error: 'refused: revoked' });
  return run;
}

/** Returns once the store's clock (Date.now) has moved past the last write: a later revocation is later. */
async function tick(): Promise<void> {
  const now = Date.now();
  while (Date.now() === now) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe('heldTasks', () => {
  it('holds a task of a revoked user refused since the revocation, until they have a token again', async () => {
    const carol = await store.tokens.create('carol');
    const task = await store.tasks.create({ userId: 'carol', prompt: 'p', every: 60 });
    const other = await store.tasks.create({ userId: 'carol', prompt: 'q', every: 60 });
    const erin = await store.tasks.create({ userId: 'erin', prompt: 'e', every: 60 });
    const all = [task, other, erin];
    // A live token: nothing held.
    expect(await heldTasks(store, all)).toEqual(new Map());
    await store.tokens.revoke(carol.record.id);
    // Revoked, not refused yet: its next firing is refused (and logged), so not held.
    expect(await heldTasks(store, all)).toEqual(new Map());
    await tick();
    const run = await refused('carol', task.id);
    const held = await heldTasks(store, all);
    expect([...held.keys()]).toEqual([task.id]);
    expect(held.get(task.id)).toMatch(new RegExp(`run ${run}\\b.*birdie tokens create --user carol`));

    // A token again lifts the hold; revoked again, the task is not held until a firing is refused again.
    await tick();
    const again = await store.tokens.create('carol');
    expect(await heldTasks(store, all)).toEqual(new Map());
    await tick();
    await store.tokens.revoke(again.record.id);
    expect(await heldTasks(store, all)).toEqual(new Map());
    await tick();
    await refused('carol', task.id);
    expect([...(await heldTasks(store, all)).keys()]).toEqual([task.id]);
  });

  it('holds nothing of a user who never had a token, whatever their runs', async () => {
    const task = await store.tasks.create({ userId: 'erin', prompt: 'e', every: 60 });
    await refused('erin', task.id);
    expect(await heldTasks(store, [task])).toEqual(new Map());
  });
});
