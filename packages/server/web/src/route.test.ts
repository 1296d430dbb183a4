import { describe, expect, it } from 'vitest';
import { parseRoute } from './route.js';

describe('parseRoute', () => {
  it('reads the places of the app', () => {
    expect(parseRoute('#/s/alice~2026-12-05_1')).toEqual({ name: 'sessions', session: 'alice~2026-12-05_1' });
    expect(parseRoute('#/s/a%20b/skills')).toEqual({ name: 'sessions', session: 'a b', panel: 'skills' });
    expect(parseRoute('#/runs/12')).toEqual({ name: 'runs', run: 12 });
    expect(parseRoute('')).toEqual({ name: 'sessions' });
  });

  // Reported: `#/s/%E0%A4%A` threw "URI malformed" out of the hash listener; the page stayed on the previous chat
  // while the address bar showed the new one.
  it('takes a malformed escape as it is written, without throwing', () => {
    expect(parseRoute('#/s/%E0%A4%A')).toEqual({ name: 'sessions', session: '%E0%A4%A' });
  });
});
