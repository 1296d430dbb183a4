import type { BaseMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { chatGraph, flipVisibleBit, summary } from '../../../store/test/helpers.js';
import { backends } from '../backends.js';
import { rejection, useBackend } from './harness.js';

// A flipped bit inside a stored value: the record's CRC-32 finds it on every back end (the database itself sees a
// valid row), the error names the session and the step, doctor lists it, repair forks from the last good step.
describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);

  it('a damaged value is named; earlier steps read; doctor finds it; repair continues from the last good step', async () => {
    const { id } = await t.store.sessions.create('alice');
    const config = { configurable: { thread_id: id } };
    const graph = chatGraph(t.store.checkpointer);
    for (let n = 1; n <= 8; n += 1) {
      await graph.invoke({ messages: [{ role: 'user', content: `turn ${n} ${'q'.repeat(200)}` }] }, config);
    }
    const messages = (await graph.getState(config)).values.messages as BaseMessage[];
    const count = Number(await t.env.one<number>('SELECT COUNT(*) AS n FROM cp_blobs'));
    const victim = Number(
      await t.env.one<number>('SELECT id FROM cp_blobs ORDER BY id LIMIT 1 OFFSET ?', [
        Math.floor(count * 0.6),
      ]),
    );
    const data = flipVisibleBit(
      (await t.env.one<Buffer>('SELECT data FROM cp_blobs WHERE id = ?', [victim]))!,
    );
    await t.env.exec('UPDATE cp_blobs SET data = ? WHERE id = ?', [data, victim]);

    // Another store has nothing cached: the damage is found on read.
    const store = await t.env.open();
    const fresh = chatGraph(store.checkpointer);
    const error = await rejection(fresh.getState(config));
    expect(error.code).toBe('corrupt-record');
    expect(error.damage).toMatchObject({
      sessionId: id,
      ns: '',
      table: 'cp_blobs',
      blobId: victim,
      reason: 'checksum mismatch',
    });
    const { checkpointId, seq, lastGoodCheckpointId } = error.damage!;
    expect(lastGoodCheckpointId! < checkpointId!).toBe(true);
    expect(error.message).toContain(
      `session ${id} has a damaged record at step ${checkpointId} (checkpoint row ${seq}) in ${store.location} (cp_blobs, `,
    );
    expect(error.message).toContain(
      `value ${victim}: checksum mismatch); it reads fine up to step ${lastGoodCheckpointId}`,
    );

    const before = (
      await fresh.getState({ configurable: { thread_id: id, checkpoint_id: lastGoodCheckpointId } })
    ).values.messages as BaseMessage[];
    expect(before.length).toBeGreaterThan(0);
    expect(summary(before)).toEqual(summary(messages).slice(0, before.length));

    const report = await store.doctor();
    expect(report).toMatchObject({ ok: false, integrity: ['ok'], location: store.location });
    expect(report.damaged).toEqual([
      {
        sessionId: id,
        ns: '',
        table: 'cp_blobs',
        blobId: victim,
        seq,
        checkpointId,
        reason: 'checksum mismatch',
      },
    ]);
    expect(report.sessions).toMatchObject([
      { sessionId: id, userId: 'alice', damaged: 1, lastGoodCheckpointId },
    ]);

    expect((await rejection(store.sessions.repair(id, 'bob'))).code).toBe('not-owner');
    const repaired = await store.sessions.repair(id, 'alice');
    expect(repaired.head).toBe(lastGoodCheckpointId);
    expect(repaired.quarantined).toContainEqual({
      table: 'cp_blobs',
      ns: '',
      blobId: victim,
      reason: 'checksum mismatch',
    });
    expect((await store.doctor()).ok).toBe(true);
    expect(await store.sessions.repair(id, 'alice')).toEqual({
      sessionId: id,
      head: lastGoodCheckpointId,
      quarantined: [],
    });

    // The session goes on from the last good step, in this store and in the first one (its caches were stale).
    await fresh.invoke({ messages: [{ role: 'user', content: 'after the repair' }] }, config);
    const continued = (await fresh.getState(config)).values.messages as BaseMessage[];
    expect(summary(continued).slice(0, before.length)).toEqual(summary(before));
    // Right after the good steps (where the damaged one was). Not necessarily second to last: the test model
    // answers every fifth turn with a tool round trip, and which step is the last good one depends on the victim.
    expect(summary(continued)[before.length]).toBe('human:after the repair');
    expect(continued.at(-1)?.getType()).toBe('ai');
    const first = chatGraph(t.store.checkpointer);
    expect(summary((await first.getState(config)).values.messages)).toEqual(summary(continued));
  });

  it('grants that do not decode are a corrupt-record of table grants, found by doctor', async () => {
    const { id } = await t.store.sessions.create('alice');
    await t.store.grants.set(id, 'alice', { enabled: ['web'], disabled: [] });
    await t.env.exec('UPDATE grants SET enabled = ? WHERE session_id = ?', ['["web"', id]);
    const error = await rejection(t.store.grants.get(id, 'alice'));
    expect(error).toMatchObject({ code: 'corrupt-record', damage: { sessionId: id, table: 'grants' } });
    expect(error.message).toContain(`the grants of session ${id} in ${t.store.location} do not decode`);
    expect((await t.store.doctor()).damaged).toMatchObject([{ sessionId: id, table: 'grants' }]);
    await t.store.grants.set(id, 'alice', { enabled: ['web'], disabled: [] });
    expect((await t.store.doctor()).ok).toBe(true);
  });
});
