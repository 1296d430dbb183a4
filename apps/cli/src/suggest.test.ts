import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from './suggest.js';

describe('suggestions', () => {
  it('counts an adjacent transposition as one edit', () => {
    expect(editDistance('rnu', 'run')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('suggests the closest candidate, and nothing when all are far', () => {
    expect(closest('sesions', ['run', 'sessions', 'skills'])).toEqual(['sessions']);
    expect(closest('skil', ['skills', 'logs'])).toEqual(['skills']);
    expect(didYouMean('xyzzy', ['run', 'logs'])).toBe('');
    expect(didYouMean('lgos', ['run', 'logs'])).toBe(' Did you mean "logs"?');
  });
});
