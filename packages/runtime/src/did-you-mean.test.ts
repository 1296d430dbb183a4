import { describe, expect, it } from 'vitest';
import { didYouMeanSession } from './did-you-mean.js';

// Session ids are dates with a counter; the general matcher reaches a third of a 12-character id (4 edits), so
// `2020-01-01_9` was offered today's `2026-12-01_1`, a different session, and a test that typed it failed on the day
// the ids came that close.
describe('didYouMeanSession', () => {
  it('offers an id one or two edits away: a mistyped counter or swapped digits', () => {
    expect(didYouMeanSession('2026-12-01_2', ['2026-12-01_1'])).toBe(' Did you mean "2026-12-01_1"?');
    expect(didYouMeanSession('2026-12-10_1', ['2026-12-01_1'])).toBe(' Did you mean "2026-12-01_1"?');
    expect(didYouMeanSession('2026-1201_1', ['2026-12-01_1', '2026-11-30_1'])).toBe(
      ' Did you mean "2026-12-01_1"?',
    );
  });

  it('does not offer another date three or more edits away', () => {
    expect(didYouMeanSession('2020-01-01_9', ['2026-12-01_1'])).toBe('');
    expect(didYouMeanSession('2026-11-30_1', ['2026-12-01_1'])).toBe('');
  });

  it('offers nothing when there are no sessions', () => {
    expect(didYouMeanSession('2026-12-01_1', [])).toBe('');
  });
});
