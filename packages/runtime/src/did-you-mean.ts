// The registry's name matcher (the one `birdie skills` and the policy use), from its own light export path: loading
// it does not load the registry.
import { editDistance, isTypoOf, suggestNames } from '@birdie/registry/suggest';

/** ` Did you mean "x"?` for the closest of `candidates` (session ids, agent names), or the empty string. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const [best] = suggestNames(name, candidates, 1);
  return best === undefined ? '' : ` Did you mean "${best}"?`;
}

/** Edits a session id may be from an existing one to be offered: a mistyped counter or two swapped digits. */
const SESSION_ID_REACH = 2;

/**
 * ` Did you mean "x"?` for the session id closest to `id`, or the empty string. Ids are dates with a counter, so the
 * names' reach (a third of the length) would offer a different day's session for any date typed.
 */
export function didYouMeanSession(id: string, ids: Iterable<string>): string {
  let best: string | undefined;
  let bestDistance = SESSION_ID_REACH + 1;
  for (const candidate of ids) {
    const distance = editDistance(id, candidate, SESSION_ID_REACH);
    if (distance < bestDistance || (distance === bestDistance && best !== undefined && candidate < best)) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best === undefined || bestDistance > SESSION_ID_REACH ? '' : ` Did you mean "${best}"?`;
}

/**
 * Whether `name` is a mistyping of one of `candidates` (within a few edits), which a caller may refuse at once. A name
 * a candidate merely contains is not: a suggestion may offer that candidate, but the name may exist elsewhere.
 */
export function looksLikeTypo(name: string, candidates: Iterable<string>): boolean {
  for (const candidate of candidates) if (isTypoOf(name, candidate)) return true;
  return false;
}
