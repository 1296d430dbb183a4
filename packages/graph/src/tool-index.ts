import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';

/** What the index knows of one tool: the text `find_tools` searches. */
export interface ToolDocument {
  name: string;
  description: string;
  skill?: string;
  tags?: readonly string[];
}

export interface ToolHit {
  name: string;
  score: number;
}

/** Words that carry no meaning in a request for a tool ("show me the logs of my container"). */
const STOP_WORDS = new Set(
  `a an and are as at be been by can do does for from get give how i in into is it its me my of on or our please show
  so some that the their them then there these this those to up us want was we what when which who will with would
  you your all any about need now`.split(/\s+/),
);

/** Lowercase, Porter-stemmed (commits → commit, scheduling → schedul), stop words dropped: the same for tools and query. */
export function foldTerm(term: string): string | null {
  const word = term.toLowerCase();
  if (word.length < 2 || STOP_WORDS.has(word)) return null;
  let stem = STEMS.get(word);
  if (stem === undefined) {
    stem = stemmer(word);
    // Tool texts repeat their words: a bounded memo keeps the stemmer's regular expressions off the hot path.
    if (STEMS.size > 50_000) STEMS.clear();
    STEMS.set(word, stem);
  }
  return stem;
}

const STEMS = new Map<string, string>();

/** Splits on spaces, punctuation and `_` (tool names are snake_case), and on camelCase humps. */
function tokenize(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[\s\p{P}\p{S}_]+/u)
    .filter((t) => t !== '');
}

/**
 * A full-text index of tools (MiniSearch: BM25+ over name, description, skill and tags, with field boosts, prefix
 * and fuzzy matching). Built once per registry snapshot; tools that come later (an MCP server's) are added as they
 * are seen. `search` answers only among the names the caller allows.
 */
export class ToolIndex {
  readonly #search = new MiniSearch<ToolDocument & { id: string; tagText: string }>({
    idField: 'id',
    fields: ['name', 'description', 'skill', 'tagText'],
    tokenize,
    processTerm: foldTerm,
  });

  constructor(tools: Iterable<ToolDocument> = []) {
    this.add(tools);
  }

  /** Adds the tools the index does not hold yet (by name; the first one of a name wins, as in a toolset). */
  add(tools: Iterable<ToolDocument>): void {
    const fresh: Array<ToolDocument & { id: string; tagText: string }> = [];
    const seen = new Set<string>();
    for (const t of tools) {
      if (seen.has(t.name) || this.#search.has(t.name)) continue;
      seen.add(t.name);
      fresh.push({ ...t, id: t.name, skill: t.skill ?? '', tagText: (t.tags ?? []).join(' ') });
    }
    if (fresh.length > 0) this.#search.addAll(fresh);
  }

  has(name: string): boolean {
    return this.#search.has(name);
  }

  /** The best `limit` tools for `query` among `allowed`, best first. */
  search(query: string, allowed: (name: string) => boolean, limit: number): ToolHit[] {
    const hits = this.#search.search(query, {
      boost: { name: 3, tagText: 1.5, skill: 1.5, description: 1 },
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
      combineWith: 'OR',
      filter: (result) => allowed(String(result.id)),
    });
    return hits.slice(0, limit).map((h) => ({ name: String(h.id), score: h.score }));
  }
}
