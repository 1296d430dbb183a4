import { isStoreError } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { toStoreError } from '../src/pg-errors.js';
import { DEFAULT_TIMEOUTS } from '../src/timeouts.js';

const state = { location: 'postgres://birdie@db/birdie', timeouts: DEFAULT_TIMEOUTS };

// Review: pg-pool's wait for a free connection ends with the same kind of timeout as opening one, and was worded as a
// server that did not answer. All the pool's connections may be busy on a healthy server under load (or stuck on a
// frozen one): the message says which bound expired and both causes, not only a dead server.
describe('toStoreError: the bounds on a silent or busy server', () => {
  it("a wait for a free connection of the pool names the pool, not only the server's silence", () => {
    const error = toStoreError(new Error('timeout exceeded when trying to connect'), state);
    expect(isStoreError(error) && error.code).toBe('unavailable');
    expect((error as Error).message).toBe(
      'the database server postgres://birdie@db/birdie: no connection of the pool came free within 10 s: every one was busy (the server is slow to answer or frozen, or the load needs more connections)',
    );
  });

  it('opening a connection that is never answered says the server did not answer', () => {
    const error = toStoreError(new Error('Connection terminated due to connection timeout'), state);
    expect((error as Error).message).toBe(
      'cannot reach the database server postgres://birdie@db/birdie: it did not answer within 10 s (Connection terminated due to connection timeout)',
    );
  });
});
