import type { Root } from 'mdast';
import { toString as textOf } from 'mdast-util-to-string';
import type { FrontmatterFinder } from './authored.js';
import { findFrontmatter, lineFrom } from './frontmatter.js';
import type { OutlineNode, OutlineReader } from './outline.js';

/**
 * The structure of a file read from its mdast tree (remark-parse with remark-frontmatter), for the unified route.
 * Offsets of the tree are offsets into the BOM-less text (micromark drops a leading BOM), as the parser's own are.
 */

/** The frontmatter fences from the tree's `yaml` node (remark-frontmatter's), which is the first child when present. */
export function frontmatterFromTree(tree: Root): FrontmatterFinder {
  return (text) => {
    const first = tree.children[0];
    const end = first?.type === 'yaml' ? first.position?.end.offset : undefined;
    if (end === undefined) {
      // No frontmatter in the tree: a first line that opens a fence was never closed; anything else has none.
      return findFrontmatter(text).state === 'missing'
        ? { state: 'missing' }
        : { state: 'unclosed', openEnd: 3 };
    }
    // The node spans both fences: the YAML runs from the line after the opening one to the closing `---` (the node's
    // last line, trailing blanks allowed), and the body starts on the line after it.
    let valueEnd = end;
    while (valueEnd > 0 && (text[valueEnd - 1] === ' ' || text[valueEnd - 1] === '\t')) valueEnd--;
    valueEnd -= 3;
    return { state: 'ok', valueStart: lineFrom(text, 0).next, valueEnd, bodyStart: lineFrom(text, end).next };
  };
}

/** The root-level headings (their text as mdast gives it, image alt left out) and fenced code blocks of the tree. */
export function outlineFromTree(tree: Root): OutlineReader {
  return (source, bodyStart) => {
    const nodes: OutlineNode[] = [];
    for (const child of tree.children) {
      const start = child.position?.start.offset;
      const end = child.position?.end.offset;
      if (start === undefined || end === undefined || start < bodyStart) continue;
      if (child.type === 'heading') {
        const text = textOf(child, { includeImageAlt: false });
        nodes.push({ type: 'heading', depth: child.depth, text, start, end });
      } else if (child.type === 'code' && isFenced(source.text, start)) {
        nodes.push({ type: 'fence', lang: (child.lang ?? '').toLowerCase(), value: child.value, start, end });
      }
    }
    return nodes;
  };
}

/** mdast has one `code` type for fenced and indented blocks; a fenced one starts with its fence. */
function isFenced(text: string, start: number): boolean {
  const head = text.slice(start, start + 3);
  return head === '```' || head === '~~~';
}
