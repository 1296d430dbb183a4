// The registry's edit distance (optimal string alignment: `rnu` is one edit from `run`), from its light export path:
// loading it does not load the registry.
import { editDistance } from '@birdie/registry/suggest';

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
