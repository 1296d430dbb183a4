import { StoreError } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { thrownTurnJson } from './thrown-turn.js';

// What `birdie run --json` closes its stream with when the turn throws after the `session` event. The busy session
// is tested through the CLI (test/run-unstarted-turn.test.ts); the other failures a turn can throw are made here.

const used = { inputTokens: 12, outputTokens: 3 };

describe('thrownTurnJson', () => {
  it('a store failure: its code, message and hint, then done and result with the tokens used', () => {
    const error = new StoreError('disk-full', 'the disk holding /h/birdie.db is full (0 B free)', {
      hint: 'free space on the disk that holds /h, then try again',
    });
    expect(thrownTurnJson(error, 's1', used)).toEqual([
      {
        type: 'error',
        error: {
          code: 'disk-full',
          message: 'the disk holding /h/birdie.db is full (0 B free)',
          hint: 'free space on the disk that holds /h, then try again',
        },
      },
      { type: 'done', status: 'error' },
      { type: 'result', status: 'error', session: 's1', inputTokens: 12, outputTokens: 3 },
    ]);
  });

  it('a damaged record: the hint names the repair of the damaged session, as the stderr line does', () => {
    const error = new StoreError('corrupt-record', 'session s1 has a damaged record', {
      damage: { sessionId: 's1' } as never,
    });
    expect(thrownTurnJson(error, 's1', used)[0]).toEqual({
      type: 'error',
      error: {
        code: 'corrupt-record',
        message: 'session s1 has a damaged record',
        hint: 'run `birdie sessions repair s1` to continue from that step, or `birdie sessions delete s1`',
      },
    });
  });

  it('a store failure without a hint has none; anything else is internal', () => {
    expect(thrownTurnJson(new StoreError('io', 'cannot read'), 's1', used)[0]).toEqual({
      type: 'error',
      error: { code: 'io', message: 'cannot read' },
    });
    expect(thrownTurnJson(new TypeError('x is undefined'), 's1', used)).toEqual([
      { type: 'error', error: { code: 'internal', message: 'x is undefined' } },
      { type: 'done', status: 'error' },
      { type: 'result', status: 'error', session: 's1', inputTokens: 12, outputTokens: 3 },
    ]);
  });
});
