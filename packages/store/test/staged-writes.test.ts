import { join } from 'node:path';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore } from '../src/index.js';
import { tempHome } from './helpers.js';

// A task's writes are acknowledged to LangGraph once encoded and commit with the step's checkpoint, which follows
// within the same turn of the event loop: one commit per step instead of one per task plus one. What another
// connection (another process) sees is checked through a second, raw connection to the same file.

let home: ReturnType<typeof tempHome>;
let store: SqliteStore;
let raw: Database.Database;

beforeEach(() => {
  home = tempHome();
  store = openStore({ home: join(home.dir, 'birdie') });
  raw = new Database(store.file, { readonly: true });
});
afterEach(async () => {
  raw.close();
  await store.close().catch(() => undefined);
  home.cleanup();
});

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const config = (thread: string, checkpointId?: string) => ({
  configurable: {
    thread_id: thread,
    checkpoint_ns: '',
    ...(checkpointId ? { checkpoint_id: checkpointId } : {}),
  },
});
const writesIn = (thread: string): number =>
  (
    raw
      .prepare(
        `SELECT count(*) AS n FROM cp_writes w JOIN cp_checkpoints c ON c.seq = w.checkpoint
         JOIN cp_threads t ON t.id = c.thread WHERE t.thread_id = ?`,
      )
      .get(thread) as { n: number }
  ).n;
const checkpointsIn = (thread: string): number =>
  (
    raw
      .prepare(
        'SELECT count(*) AS n FROM cp_checkpoints c JOIN cp_threads t ON t.id = c.thread WHERE t.thread_id = ?',
      )
      .get(thread) as { n: number }
  ).n;

/** A stored step to hang writes on; returns its checkpoint id. */
async function step(thread: string, parent?: string): Promise<string> {
  const checkpoint = { ...emptyCheckpoint(), id: uuid6(-1) };
  await store.checkpointer.put(
    config(thread, parent),
    checkpoint,
    { source: 'loop', step: 0, parents: {} },
    {},
  );
  return checkpoint.id;
}

describe('task writes commit with their step', () => {
  it("are in the file with the next step's checkpoint, not before it", async () => {
    const first = await step('t1');
    await store.checkpointer.putWrites(config('t1', first), [['answer', 'forty-two']], 'task-1');
    // Acknowledged, not yet committed: another process would find the step as it was a moment ago.
    expect(writesIn('t1')).toBe(0);
    await step('t1', first);
    expect(writesIn('t1')).toBe(1);
    expect(checkpointsIn('t1')).toBe(2);
  });

  it('are read back at once by this process', async () => {
    const first = await step('t2');
    await store.checkpointer.putWrites(config('t2', first), [['answer', 'forty-two']], 'task-1');
    const tuple = await store.checkpointer.getTuple(config('t2', first));
    expect(tuple?.pendingWrites).toEqual([['task-1', 'answer', 'forty-two']]);
  });

  it('commit on their own at the next turn of the event loop when no checkpoint follows (an interrupt, a long task)', async () => {
    const first = await step('t3');
    await store.checkpointer.putWrites(
      config('t3', first),
      [['__interrupt__', [{ value: 'approve?' }]]],
      'task-1',
    );
    await nextTurn();
    await nextTurn();
    expect(writesIn('t3')).toBe(1);
  });

  it("commit when the store closes, even in the same turn as the task's end", async () => {
    const first = await step('t4');
    await store.checkpointer.putWrites(config('t4', first), [['answer', 'forty-two']], 'task-1');
    await store.close();
    expect(writesIn('t4')).toBe(1);
  });

  it('are dropped with a thread deleted before they commit, which leaves nothing of it', async () => {
    const first = await step('t5');
    await store.checkpointer.putWrites(config('t5', first), [['answer', 'forty-two']], 'task-1');
    await store.checkpointer.deleteThread('t5');
    await nextTurn();
    await nextTurn();
    expect(checkpointsIn('t5')).toBe(0);
    expect(writesIn('t5')).toBe(0);
  });

  it('that fail to commit on their own fail the next call on the saver with their error', async () => {
    const session = await store.sessions.create('alice');
    const first = await step(session.id);
    takeLease(session.id);
    await store.checkpointer.putWrites(config(session.id, first), [['answer', 'forty-two']], 'task-1');
    await nextTurn();
    await nextTurn();
    await expect(store.checkpointer.getTuple(config(session.id, first))).rejects.toMatchObject({
      code: 'session-busy',
    });
    expect(writesIn(session.id)).toBe(0);
  });

  it("of one session that cannot commit fail only that session's calls, not another's on the same store", async () => {
    const lost = await store.sessions.create('alice');
    const kept = await store.sessions.create('bob');
    const lostStep = await step(lost.id);
    const keptStep = await step(kept.id);
    takeLease(lost.id);
    await store.checkpointer.putWrites(config(lost.id, lostStep), [['answer', 'lost']], 'task-1');
    await store.checkpointer.putWrites(config(kept.id, keptStep), [['answer', 'kept']], 'task-1');
    // The other session's next step commits its own writes only, and is not failed by the lost session's.
    await step(kept.id, keptStep);
    expect(writesIn(kept.id)).toBe(1);
    await nextTurn();
    await nextTurn();
    const tuple = await store.checkpointer.getTuple(config(kept.id, keptStep));
    expect(tuple?.pendingWrites).toEqual([['task-1', 'answer', 'kept']]);
    await expect(step(lost.id, lostStep)).rejects.toMatchObject({ code: 'session-busy' });
    expect(writesIn(lost.id)).toBe(0);
  });
});

/** Another process takes the session (its lease has expired for it): this process's next write is fenced off. */
function takeLease(sessionId: string): void {
  const writer = new Database(store.file);
  writer
    .prepare(
      `INSERT INTO leases (session_id, owner, host, pid, pid_scope, acquired_at, expires_at)
       VALUES (?, 'someone-else', 'elsewhere', 1, 'x', ?, ?)`,
    )
    .run(sessionId, Date.now(), Date.now() + 60_000);
  writer.close();
}
