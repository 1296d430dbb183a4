import { MAX_SETEXT_HEADINGS } from './limits.js';
import { lineEnd, nextLine, type Source } from './source.js';

/** A root-level block of the Markdown tree that matters for skill structure. */
export type OutlineNode =
  | { type: 'heading'; depth: number; text: string; start: number; end: number }
  | { type: 'fence'; lang: string; value: string; start: number; end: number };

/** Reads the outline of a body: the root-level nodes from `bodyStart` on (nodes before it are ignored). */
export type OutlineReader = (source: Source, bodyStart: number) => OutlineNode[];

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

/**
 * A level-2 heading whose text is "tools" needs an ATX line (`## …`, after ≤ 3 spaces) or a setext `---` underline,
 * whose text, once markup is taken into account, trims to "tools". Without inline markup (escapes, character
 * references, code, emphasis, links, images, HTML: `INLINE_MARKUP`) a heading's text is its source text: an ATX line
 * whose content (closing `#`s and blanks dropped) is not "tools" cannot be one; a setext heading's text is made of the
 * non-blank lines above its underline, joined by line endings or (after a hard break) by nothing, so when those lines,
 * blanks removed, do not end with "tools", it cannot be one. With markup but without a character reference (`&…;`, the
 * only construct that puts characters in the text that are not in the source), every character of the text comes from
 * the source in order, so a source without the letters t, o, o, l, s in that order cannot be one either (a heading
 * `## Example: with_server.py` is not read). When no line can be one, the Markdown tree cannot contain
 * a Tools section and parsing it would tell nothing new: this check is what keeps knowledge skills cheap (a body
 * titled `## Server Tools` is not read). It may say yes too often (then the outline decides), never too rarely. Each
 * form is a linear scan.
 */
const SETEXT_UNDERLINE = /\n {0,3}-+[ \t]*\r?$/gm;
const INLINE_MARKUP = /[\\`*_&<[!]/;
const BLANK = /\s/;
/** The shape of every character reference (`&amp;`, `&#111;`, `&#x6F;`), and of more. */
const CHARACTER_REFERENCE = /&#?[A-Za-z0-9]+;/;

export function mayHaveToolsSection(text: string, bodyStart: number): boolean {
  const body = bodyStart === 0 ? text : text.slice(bodyStart);
  for (let hit = body.indexOf('##'); hit !== -1; hit = body.indexOf('##', hit + 1)) {
    const content = atxLevel2Content(body, hit);
    if (content === undefined) continue;
    if (INLINE_MARKUP.test(content)) {
      if (mayReadTools(content)) return true;
    } else if (withoutClosing(content).trim().toLowerCase() === 'tools') return true;
  }
  SETEXT_UNDERLINE.lastIndex = 0;
  for (let match = SETEXT_UNDERLINE.exec(body); match; match = SETEXT_UNDERLINE.exec(body)) {
    const lines = paragraphAbove(body, match.index);
    if (INLINE_MARKUP.test(lines)) {
      if (mayReadTools(lines)) return true;
    } else if (lines.replace(/\s+/g, '').toLowerCase().endsWith('tools')) return true;
  }
  return false;
}

/** Ends a line for this check: `\n`, `\r` (micromark's line endings), and what else JavaScript takes for one. */
const endsLine = (code: number) => code === 10 || code === 13 || code === 0x2028 || code === 0x2029;

/**
 * The content of the line whose `##` is at `hit` when that line is a level-2 ATX heading's shape (at most three spaces
 * before `##`, then a blank or the line's end), else `undefined`. Found from `indexOf('##')` rather than a multiline
 * `^` expression, which is tried at every character of the body.
 */
function atxLevel2Content(body: string, hit: number): string | undefined {
  let start = hit;
  while (start > 0 && hit - start < 3 && body.charCodeAt(start - 1) === 32) start--;
  if (start > 0 && !endsLine(body.charCodeAt(start - 1))) return undefined;
  const after = hit + 2;
  if (after < body.length) {
    const next = body.charCodeAt(after);
    if (next !== 32 && next !== 9 && !endsLine(next)) return undefined;
  }
  let end = after;
  while (end < body.length && !endsLine(body.charCodeAt(end))) end++;
  return body.slice(after, end);
}

/** Source with markup whose text might read "tools": it has a character reference, or t, o, o, l, s in order. */
function mayReadTools(source: string): boolean {
  if (source.includes('&') && CHARACTER_REFERENCE.test(source)) return true;
  const wanted = 'tools';
  let found = 0;
  for (let i = 0; i < source.length && found < wanted.length; i++) {
    if ((source.charCodeAt(i) | 0x20) === wanted.charCodeAt(found)) found++;
  }
  return found === wanted.length;
}

/** An ATX heading's content without trailing `#`s and blanks (more than a closing sequence: it may say yes too often). */
function withoutClosing(content: string): string {
  let end = content.length;
  while (end > 0 && (content[end - 1] === '#' || BLANK.test(content[end - 1]!))) end--;
  return content.slice(0, end);
}

const UNDERLINE_SHAPE = /^ {0,3}(?:=+|-+)[ \t]*\r?$/;

/**
 * The lines above the line break at `end`, back to a blank line or a line shaped like an underline (a paragraph never
 * reaches past one of those with text that could still read "tools"). Each line is read for one underline at most.
 */
function paragraphAbove(body: string, end: number): string {
  let start = end;
  // `breakAt` is the line break that ends the line looked at.
  for (let breakAt = end; breakAt > 0; ) {
    const lineStart = body.lastIndexOf('\n', breakAt - 1) + 1;
    const line = body.slice(lineStart, breakAt);
    if (!/\S/.test(line) || UNDERLINE_SHAPE.test(line)) break;
    start = lineStart;
    breakAt = lineStart - 1;
  }
  return body.slice(start, end);
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
