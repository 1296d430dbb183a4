// The registry's name matcher (the one `birdie skills` and the policy use), from its own light export path: loading
// it does not load the registry.
import { isTypoOf, suggestNames } from '@birdie/registry/suggest';

/** ` Did you mean "x"?` for the closest of `candidates` (session ids, agent names), or the empty string. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const [best] = suggestNames(name, candidates, 1);
  return best === undefined ? '' : ` Did you mean "${best}"?`;
}

/**
 * Whether `name` is a mistyping of one of `candidates` (within a few edits), which a caller may refuse at once. A name
 * a candidate merely contains is not: a suggestion may offer that candidate, but the name may exist elsewhere.
 */
export function looksLikeTypo(name: string, candidates: Iterable<string>): boolean {
  for (const candidate of candidates) if (isTypoOf(name, candidate)) return true;
  return false;
}
