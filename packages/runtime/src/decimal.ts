/** A decimal number as a person types one: digits, an optional sign and fraction; no exponent, no base prefix. */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * The number a typed value means, or NaN. `Number()` alone would read `0x10` as 16, `0b11` as 3 and `1e5` as 100000:
 * a setting or flag saved as a value the user never wrote.
 */
export function decimalNumber(text: string): number {
  const trimmed = text.trim();
  return DECIMAL.test(trimmed) ? Number(trimmed) : Number.NaN;
}
