// The registry's name matcher (the one `birdie skills` and the policy use), from its own light export path: loading
// it does not load the registry.
import { suggestNames } from '@birdie/registry/suggest';

/** ` Did you mean "x"?` for the closest of `candidates` (session ids, agent names), or the empty string. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const [best] = suggestNames(name, candidates, 1);
  return best === undefined ? '' : ` Did you mean "${best}"?`;
}
