import { describe, expect, it } from 'vitest';
import { integerProblem } from './integer-argument.js';

describe('integerProblem', () => {
  it.each([0, 7, -3, '12', '-0', '0', 9007199254740991])('accepts %j', (value) => {
    expect(integerProblem('n', value)).toBeUndefined();
  });

  it.each([
    1.5,
    '1.5',
    '01',
    '+1',
    ' 1',
    '0x10',
    '1e3',
    '',
    'a[$(id)]',
    Number.NaN,
    2 ** 60,
    true,
    null,
    [1],
  ])('refuses %j', (value) => {
    expect(integerProblem('n', value)).toMatch(/^argument "n" is .*integer/);
  });

  it('applies the schema bounds', () => {
    const bounds = { minimum: 1, maximum: 10 };
    expect(integerProblem('n', 0, bounds)).toContain('below');
    expect(integerProblem('n', 11, bounds)).toContain('above');
    expect(integerProblem('n', 10, bounds)).toBeUndefined();
    expect(integerProblem('n', 10, { exclusiveMaximum: 10 })).toContain('above');
  });

  // Stop 69's report: 9007199254740992 is plain decimal digits, and the message said it was not.
  it.each([
    [9007199254740992, '9007199254740992'],
    [-1e20, '-100000000000000000000'],
    [1e300, '1e+300'],
    ['90071992547409921', '"90071992547409921"'],
  ])('says a number beyond the exact range is that, not "not plain digits": %j', (value, shown) => {
    expect(integerProblem('n', value)).toBe(
      `argument "n" is ${shown}, beyond the integers a tool can be given exactly (±9007199254740991); nothing was run`,
    );
  });
});
