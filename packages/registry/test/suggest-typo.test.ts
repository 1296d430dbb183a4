import { describe, expect, it } from 'vitest';
import { isTypoOf, suggestNames } from '../src/suggest.js';

// Exploratory report (author) #12: `birdie tool echo` was refused as a typo of `notes_helper_echo`, because a name a
// candidate contains is always a suggestion; a suggestion is not a typo.

describe('isTypoOf', () => {
  it('takes a few edits for a typo, case ignored', () => {
    expect(isTypoOf('gret', 'greet')).toBe(true);
    expect(isTypoOf('notes_helper_ecoh', 'notes_helper_echo')).toBe(true);
    expect(isTypoOf('Read_File', 'read_file')).toBe(true);
  });

  it('does not take a name a candidate merely contains for a typo of it, though it suggests it', () => {
    expect(isTypoOf('echo', 'notes_helper_echo')).toBe(false);
    expect(suggestNames('echo', ['notes_helper_echo'])).toEqual(['notes_helper_echo']);
    expect(isTypoOf('', 'echo')).toBe(false);
  });
});
