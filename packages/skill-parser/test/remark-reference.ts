import type { Root } from 'mdast';
import { toString as textOf } from 'mdast-util-to-string';
import remarkFrontmatter from 'remark-frontmatter';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { outlineFromTree } from '../src/mdast-structure.js';
import type { OutlineNode } from '../src/outline.js';
import type { Source } from '../src/source.js';

/**
 * The reference the fast readers are held to: remark's full mdast tree (what the parser used before it read the
 * outline from micromark's events, and heading text from its inline events). Tests only.
 */
const processor = unified().use(remarkParse).use(remarkFrontmatter);

/** Root-level headings and fenced code blocks of the whole file, from the remark (mdast) tree (the unified route's reader). */
export function outlineFromMdast(source: Source): OutlineNode[] {
  return outlineFromTree(processor.parse(source.text) as Root)(source, 0);
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
  return first?.type === 'heading' && tree.children.length === 1
    ? textOf(first, { includeImageAlt: false })
    : undefined;
}
