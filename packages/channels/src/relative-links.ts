import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import unified from 'unified';

/**
 * The Markdown with every link Telegram cannot open (a relative target: `[app.py](app.py)`, `[a](./x)`, `#top`) as
 * its text alone. `telegramify-markdown` (1.3.x) turns such a link into its text, but escapes that text twice for
 * MarkdownV2 (the user reads `app\.py`); given the text alone, it escapes it once. The links are found by the
 * parser the converter uses (unified 9 with remark-parse 9 and remark-gfm 1, our own dependencies at the versions
 * its 1.3.x range resolves), so both read the same links. Should that parser ever fail on a text, the Markdown goes
 * to the converter unchanged: an answer is sent with a link text escaped twice rather than not at all.
 */
export function relativeLinksAsText(markdown: string): string {
  if (!markdown.includes(']')) return markdown; // no link of any kind
  try {
    return withoutRelativeLinks(markdown);
  } catch {
    return markdown;
  }
}

function withoutRelativeLinks(markdown: string): string {
  const tree = parser().parse(markdown) as MdNode;
  const definitions = new Map<string, string>();
  visit(tree, (node) => {
    // The converter keeps the last definition of an identifier.
    if (node.type === 'definition' && node.identifier !== undefined)
      definitions.set(node.identifier, node.url ?? '');
    return true;
  });
  const spans: Array<{ start: number; end: number; text: string }> = [];
  visit(tree, (node) => {
    if (node.type !== 'link' && node.type !== 'linkReference') return true;
    const url = node.type === 'link' ? node.url : definitions.get(node.identifier ?? '');
    // A reference with no definition is text to the converter already; a link with no text shows its target.
    if (url === undefined || opensInTelegram(url) || !node.children?.length) return false;
    const first = node.children[0]?.position?.start.offset;
    const last = node.children.at(-1)?.position?.end.offset;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (first === undefined || last === undefined || start === undefined || end === undefined) return false;
    spans.push({ start, end, text: markdown.slice(first, last) });
    return false; // a link holds no other link
  });
  let out = markdown;
  for (const span of spans.sort((a, b) => b.start - a.start))
    out = out.slice(0, span.start) + span.text + out.slice(span.end);
  return out;
}

/** What the converter links: a target that is an absolute URL once encoded (its own test). */
function opensInTelegram(url: string): boolean {
  try {
    const encoded = decodeURI(url) !== url ? url : encodeURI(url);
    return Boolean(new URL(encoded));
  } catch {
    return false;
  }
}

interface MdNode {
  type: string;
  url?: string;
  identifier?: string;
  children?: MdNode[];
  position?: { start: { offset?: number }; end: { offset?: number } };
}

/** Calls `enter` on every node, depth first; `false` skips the node's children. */
function visit(node: MdNode, enter: (node: MdNode) => boolean): void {
  if (enter(node) === false) return;
  for (const child of node.children ?? []) visit(child, enter);
}

interface Parser {
  parse(markdown: string): unknown;
}
let cached: Parser | undefined;

function parser(): Parser {
  // remark 9 plugins are typed against a later unified than the 9 they run with (correct at run time, as the converter
  // uses them).
  cached ??= unified()
    .use(remarkParse as unknown as unified.Plugin)
    .use(remarkGfm as unknown as unified.Plugin);
  return cached;
}
