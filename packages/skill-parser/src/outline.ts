import type { Code, Heading, Nodes, Root } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { MAX_SETEXT_HEADINGS } from './limits.js';
import { lineEnd, nextLine, type Source } from './source.js';

/** A root-level block of the Markdown tree that matters for skill structure. */
export type OutlineNode =
  | { type: 'heading'; depth: number; text: string; start: number; end: number }
  | { type: 'fence'; lang: string; value: string; start: number; end: number };

export interface Fence {
  lang: string;
  value: string;
  start: number;
  end: number;
}

export interface ToolBlockRange {
  name: string;
  headingStart: number;
  headingEnd: number;
  /** The block's text runs from `start` (the line after the heading) to `end`. */
  start: number;
  end: number;
  fences: Fence[];
}

export interface ToolsSection {
  headingStart: number;
  headingEnd: number;
  end: number;
  blocks: ToolBlockRange[];
  /** Start offsets of further `## Tools` headings (ignored, reported). */
  extraHeadings: number[];
}

const processor = unified().use(remarkParse).use(remarkFrontmatter);

/**
 * A level-2 heading whose text is "tools" needs a line that starts (after ≤ 3 spaces) with `## ` and spells "tools"
 * (or hides letters in character references such as `&#111;`), or a setext `---` underline below such a line. When no
 * line can be one, the Markdown tree cannot contain a Tools section and parsing it would tell nothing new: this check is
 * what keeps knowledge skills cheap. It may say yes too often (then the tree decides), never too rarely. Each form is
 * a linear scan (one regular expression for both backtracked quadratically over a long line full of "tools").
 */
const REF = '&#?[a-z0-9]+;';
const ATX_CANDIDATE = new RegExp(`^ {0,3}##(?:[ \\t][^\\n]*)?(?:tools|${REF})`, 'im');
const SETEXT_UNDERLINE = /\n {0,3}-+[ \t]*\r?$/gm;
const TOOLS_WORD = new RegExp(`tools|${REF}`, 'i');

export function mayHaveToolsSection(text: string, bodyStart: number): boolean {
  const body = bodyStart === 0 ? text : text.slice(bodyStart);
  if (ATX_CANDIDATE.test(body)) return true;
  SETEXT_UNDERLINE.lastIndex = 0;
  for (let match = SETEXT_UNDERLINE.exec(body); match; match = SETEXT_UNDERLINE.exec(body)) {
    const lineStart = body.lastIndexOf('\n', match.index - 1) + 1;
    if (TOOLS_WORD.test(body.slice(lineStart, match.index))) return true;
  }
  return false;
}

const UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*\r?$/gm;

/** Offset of the first underline past `MAX_SETEXT_HEADINGS` (counting every one that follows a line of text), or -1. */
export function setextPastLimit(text: string, bodyStart: number): number {
  let count = 0;
  UNDERLINE.lastIndex = bodyStart;
  for (let match = UNDERLINE.exec(text); match; match = UNDERLINE.exec(text)) {
    const previous = text.slice(text.lastIndexOf('\n', match.index - 2) + 1, match.index - 1);
    if (/\S/.test(previous) && ++count > MAX_SETEXT_HEADINGS) return match.index;
  }
  return -1;
}

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

/** The text mdast gives a heading whose raw content has inline markup (`**Tools**`, `T&#111;ols`, …). */
export function headingText(raw: string): string {
  const tree = processor.parse(raw.includes('\n') ? `${raw}\n---` : `# ${raw}`) as Root;
  const first = tree.children[0];
  return first ? plainText(first) : raw;
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

/** The `## Tools` section (first one, level 2, any case) and its `###` tool blocks. */
export function findToolsSection(
  source: Source,
  nodes: OutlineNode[],
  bodyStart: number,
): ToolsSection | undefined {
  let section: ToolsSection | undefined;
  let open = false;
  let block: ToolBlockRange | undefined;
  const closeBlock = (at: number) => {
    if (block) block.end = at;
    block = undefined;
  };
  for (const node of nodes) {
    if (node.start < bodyStart) continue;
    if (node.type === 'fence') {
      if (open && block)
        block.fences.push({ lang: node.lang, value: node.value, start: node.start, end: node.end });
      continue;
    }
    const isTools = node.depth === 2 && node.text.trim().toLowerCase() === 'tools';
    if (open && node.depth <= 2) {
      closeBlock(node.start);
      section!.end = node.start;
      open = false;
    }
    if (isTools) {
      if (section) section.extraHeadings.push(node.start);
      else {
        section = {
          headingStart: node.start,
          headingEnd: node.end,
          end: source.text.length,
          blocks: [],
          extraHeadings: [],
        };
        open = true;
      }
    } else if (open && node.depth === 3) {
      closeBlock(node.start);
      const start = nextLine(source.text, lineEnd(source.text, node.end));
      block = {
        name: node.text.trim(),
        headingStart: node.start,
        headingEnd: node.end,
        start,
        end: source.text.length,
        fences: [],
      };
      section!.blocks.push(block);
    }
  }
  return section;
}
