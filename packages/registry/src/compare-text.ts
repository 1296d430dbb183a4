/** Orders strings by their UTF-16 code units, the same on every machine (no locale), as listed names are sorted. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
