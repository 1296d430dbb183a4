import { compareText } from './diagnostics.js';

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions, so `delpoy` is one edit from
 * `deploy`), giving up as soon as it must exceed `max` so a miss against a thousand names stays cheap.
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, prevPrev[j - 2]! + 1);
      }
      row.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/** How many edits a name of this length may be from `query` and still be within reach: a third of the longer, ≥ 2. */
function reachOf(query: string, name: string): number {
  return Math.max(2, Math.floor(Math.max(query.length, name.length) / 3));
}

/**
 * Whether `query` is a mistyping of `name`: within reach in edits (case ignored). Unlike `suggestNames`, containing
 * the name or being contained in it does not count: `echo` is not a typo of `notes_helper_echo`, it may be the exact
 * name of another tool, so a caller that refuses a name as a typo (`birdie tool`) must not take it for one.
 */
export function isTypoOf(query: string, name: string): boolean {
  const q = query.toLowerCase();
  const n = name.toLowerCase();
  return q.length > 0 && editDistance(q, n, reachOf(q, n)) <= reachOf(q, n);
}

/**
 * Names within reach of `query`, closest first (ties by name). Case is ignored. Reach is a third of the longer
 * word, at least 2, so `gti` finds `git` but `x` does not suggest every two-letter name; a name that contains the
 * query or is contained in it (`deploy` → `deploy-k8s`) is always in reach.
 */
export function suggestNames(query: string, names: Iterable<string>, limit = 3): string[] {
  const q = query.toLowerCase();
  if (q.length === 0 || limit <= 0) return [];
  const scored: Array<{ name: string; distance: number }> = [];
  for (const name of names) {
    const n = name.toLowerCase();
    const reach = reachOf(q, n);
    let distance = editDistance(q, n, reach);
    if (distance > reach && Math.min(q.length, n.length) >= 3 && (n.includes(q) || q.includes(n)))
      distance = reach;
    if (distance <= reach) scored.push({ name, distance });
  }
  scored.sort((x, y) => x.distance - y.distance || compareText(x.name, y.name));
  return scored.slice(0, limit).map((entry) => entry.name);
}
