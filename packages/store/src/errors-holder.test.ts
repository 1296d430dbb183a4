import { describe, expect, it } from 'vitest';
import { DIED_WITHOUT_HOLDER, withoutHolder } from './errors.js';
import { takenOverError } from './lease-rows.js';
import { diedMessage } from './runs.js';

describe('withoutHolder', () => {
  const holder = { owner: 'w', host: 'build-7', pid: 4242, since: new Date(0), expiresAt: new Date(0) };

  it('words a busy session, a lost lease and a died run without the process or the machine', () => {
    for (const [code, message] of [
      ['session-busy', 'session s is in use by process 4242 on build-7 since 1970-01-01T00:00:00.000Z'],
      [
        'lease-lost',
        'the lease on session s was taken over by process 4242 on build-7 at 1970-01-01T00:00:00.000Z',
      ],
      ['died', diedMessage({ host: 'build-7', pid: 4242 })],
      ['died', takenOverError(holder)],
    ] as const) {
      const said = withoutHolder(code, message);
      expect(said).not.toMatch(/4242|build-7/);
      expect(said.length).toBeGreaterThan(20);
    }
    // A run that died for another reason keeps its own words (reported by the rehearsal: a PostgreSQL outage's).
    const unrecorded =
      'died: the turn ended while the database server could not be reached, so its end was not recorded';
    expect(withoutHolder('died', unrecorded)).toBe(unrecorded);
    expect(diedMessage({ host: null, pid: null })).toBe(DIED_WITHOUT_HOLDER);
  });

  it('keeps a lost lease that names no holder in its own words', () => {
    const released = 'the lease on session s was released; this process no longer holds it';
    expect(withoutHolder('lease-lost', released)).toBe(released);
    expect(
      withoutHolder('lease-lost', 'the lease on session s was taken over by process 4242 on build-7 at T'),
    ).toBe('the lease on session s was taken over by another process at T');
  });

  it('leaves every other message as it is', () => {
    expect(withoutHolder('disk-full', 'the disk is full')).toBe('the disk is full');
    expect(withoutHolder(undefined, 'the model failed')).toBe('the model failed');
  });
});
