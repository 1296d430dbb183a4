import type { Code, Heading, Nodes, Root } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import type { OutlineNode } from '../src/outline.js';
import type { Source } from '../src/source.js';

/**
 * The reference the fast readers are held to: remark's full mdast tree (what the parser used before it read the
 * outline from micromark's events, and heading text from its inline events). Tests only.
 */
const processor = unified().use(remarkParse).use(remarkFrontmatter);

/** Root-level headings and fenced code blocks of the whole file, from the remark (mdast) tree. */
export function outlineFromMdast(source: Source): OutlineNode[] {
  const tree = processor.parse(source.text) as Root;
  const nodes: OutlineNode[] = [];
  for (const child of tree.children) {
    const start = child.position?.start.offset;
    const end = child.position?.end.offset;
    if (start === undefined || end === undefined) continue;
    if (child.type === 'heading') {
      nodes.push({ type: 'heading', depth: (child as Heading).depth, text: plainText(child), start, end });
    } else if (child.type === 'code' && isFenced(source.text, start)) {
      const code = child as Code;
      nodes.push({ type: 'fence', lang: (code.lang ?? '').toLowerCase(), value: code.value, start, end });
    }
  }
  return nodes;
}

/** remark-frontmatter's `yaml` node of a text, if any (the reference `findFrontmatter` is tested against). */
export function remarkYaml(text: string): { value: string } | undefined {
  const first = (processor.parse(text) as Root).children[0];
  return first?.type === 'yaml' ? { value: first.value } : undefined;
}

/**
 * The text mdast gives a heading whose raw content has inline markup (the reference for `headingText`), or
 * `undefined` when `raw` cannot be a heading's content (a line of it would start another block).
 */
export function remarkHeadingText(
  raw: string,
  form: 'atx' | 'setext' = raw.includes('\n') ? 'setext' : 'atx',
): string | undefined {
  const tree = processor.parse(form === 'setext' ? `${raw}\n---` : `# ${raw}`) as Root;
  const first = tree.children[0];
  return first?.type === 'heading' && tree.children.length === 1 ? plainText(first) : undefined;
}

function isFenced(text: string, start: number): boolean {
  const head = text.slice(start, start + 3);
  return head === '```' || head === '~~~';
}

function plainText(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.value;
  if ('children' in node) return (node.children as Nodes[]).map(plainText).join('');
  return '';
}
