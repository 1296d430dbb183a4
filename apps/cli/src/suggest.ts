/**
 * Edit distance with adjacent transpositions (optimal string alignment), so `rnu` is one edit from `run`.
 * Inputs are command, option and skill names: short, so the full matrix is fine.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidates closest to `name`, best first. A candidate qualifies when it starts with what was typed or is
 * within a third of its length in edits, so `skil` finds `skills` but `x` does not drag in everything.
 */
export function closest(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const lower = name.toLowerCase();
  const scored: Array<[string, number]> = [];
  for (const candidate of candidates) {
    const c = candidate.toLowerCase();
    const distance = c.startsWith(lower) && lower.length > 0 ? 0.5 : editDistance(lower, c);
    if (distance <= Math.max(1, Math.ceil(Math.max(lower.length, c.length) / 3)))
      scored.push([candidate, distance]);
  }
  scored.sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0]));
  return scored.slice(0, limit).map(([c]) => c);
}

/** ` Did you mean "x"?` or the empty string. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const [best] = closest(name, candidates, 1);
  return best === undefined ? '' : ` Did you mean "${best}"?`;
}
