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

/**
 * Words people use for what tool texts say otherwise ("look it up online" → search the web). A query also searches
 * these, at a lower weight than its own words; tool texts are indexed as written.
 */
const RELATED: Record<string, string> = {
  online: 'web internet',
  internet: 'web online',
  web: 'internet online',
  look: 'search find',
  lookup: 'search find',
  google: 'search web',
  show: 'read display list',
  see: 'read show',
  open: 'read',
  content: 'read',
  contents: 'read',
  folder: 'directory',
  folders: 'directories',
  directory: 'folder',
  dir: 'directory',
  mkdir: 'create directory',
  save: 'write store',
  store: 'save write',
  overwrite: 'write replace',
  picture: 'image photo',
  photo: 'image picture',
  image: 'picture photo',
  remove: 'delete',
  delete: 'remove',
  execute: 'run command',
  terminal: 'shell command bash',
  console: 'shell command',
  command: 'shell bash run',
  rain: 'weather forecast precipitation',
  snow: 'weather forecast precipitation',
  hot: 'temperature weather',
  cold: 'temperature weather',
  mail: 'email',
  email: 'mail',
  meeting: 'calendar event',
  price: 'quote cost',
};

/** The related words of a query's words, or '' when none has any. */
function relatedWords(query: string): string {
  return tokenize(query)
    .flatMap((word) => RELATED[word.toLowerCase()] ?? [])
    .join(' ');
}

/** Splits on spaces, punctuation and `_` (tool names are snake_case), and on camelCase humps. */
function tokenize(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[\s\p{P}\p{S}_]+/u)
    .filter((t) => t !== '');
}

/** Field weights: a word in a tool's name says most, its skill and tags next, its description least. */
const BOOST = { name: 3, tagText: 1.5, skill: 1.5, description: 1 };
/** A related word counts for less than the user's own. */
const RELATED_WEIGHT = 0.4;
const scaled = (boost: Record<string, number>, by: number) =>
  Object.fromEntries(Object.entries(boost).map(([field, weight]) => [field, weight * by]));

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
    const options = {
      prefix: (term: string) => term.length >= 4,
      fuzzy: (term: string) => (term.length >= 6 ? 0.2 : false),
    };
    const related = relatedWords(query);
    const hits = this.#search.search(
      {
        combineWith: 'OR',
        queries: [
          { ...options, queries: [query], boost: BOOST },
          ...(related ? [{ ...options, queries: [related], boost: scaled(BOOST, RELATED_WEIGHT) }] : []),
        ],
      },
      { filter: (result) => allowed(String(result.id)) },
    );
    return hits.slice(0, limit).map((h) => ({ name: String(h.id), score: h.score }));
  }
}
