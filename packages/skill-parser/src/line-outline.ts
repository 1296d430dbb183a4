import { fenceNode, headingTextOf, type InlineText } from './markdown.js';
import type { OutlineNode } from './outline.js';
import { lineEnd, nextLine, type Source } from './source.js';

const ATX = /^(#{1,6})(?:[ \t]+|$)/;
const CLOSING_SEQUENCE = /(?:^|[ \t])#+$/;
const FENCE = /^(`{3,}|~{3,})(.*)$/;
const CLOSING_FENCE = /^(`+|~+)[ \t]*$/;
const UNDERLINE = /^(?:=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const LIST_ITEM = /^(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
/**
 * Line endings micromark knows and this reader does not (a lone CR), NUL, which micromark replaces, and a byte order
 * mark, which micromark drops at the start of its input only (a body starting with two moves every offset).
 */
const UNSURE = /\r(?!\n)|\0|\uFEFF/;

interface OpenFence {
  char: string;
  length: number;
  start: number;
  lang: string;
}

/**
 * The root-level headings and fenced code blocks of the body, read line by line: the same nodes as
 * `outlineFromMicromark`, or `undefined` when the body holds something this reader does not follow, and the caller asks
 * micromark. It follows what tool skills are made of — ATX headings, fences, paragraphs, indented code, thematic
 * breaks, and list items and block quotes as long as nothing inside them could be mistaken for a root-level block — and
 * gives up on HTML blocks, setext headings (and anything shaped like their underline next to text), and a heading,
 * fence or break indented by 1–3 columns while a list or quote may be open (nested or not, only the container's exact
 * extent would tell). The rules it relies on, from CommonMark: a line indented by four columns or more is never a
 * root-level heading or fence; a heading, a fence or a thematic break at column 0 closes every open container (they
 * cannot be lazy continuation lines), as does a line of text at column 0 after a blank line; nothing else opens or
 * closes a root-level fence.
 */
export function outlineFromLines(
  source: Source,
  bodyStart: number,
  inlineText: InlineText,
): OutlineNode[] | undefined {
  const { text } = source;
  if (UNSURE.test(bodyStart === 0 ? text : text.slice(bodyStart))) return undefined;
  const nodes: OutlineNode[] = [];
  let fence: OpenFence | undefined;
  // A root-level paragraph is open (the next line may continue it, or underline it).
  let paragraph = false;
  // A list item or block quote may be open: over-estimated, never under-estimated.
  let container = false;
  let blankBefore = false;
  for (let offset = bodyStart; offset < text.length; offset = nextLine(text, offset)) {
    const end = lineEnd(text, offset);
    let first = offset;
    let column = 0;
    for (; first < end; first++) {
      const code = text.charCodeAt(first);
      if (code === 32) column++;
      else if (code === 9) column += 4 - (column % 4);
      else break;
    }
    const line = text.slice(first, end);
    if (fence) {
      const close = line && column <= 3 ? CLOSING_FENCE.exec(line) : null;
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) {
        nodes.push(fenceNode(text, fence.lang, fence.start, end, offset));
        fence = undefined;
        blankBefore = false;
      }
      continue;
    }
    if (!line) {
      paragraph = false;
      blankBefore = true;
      continue;
    }
    const after = blankBefore;
    blankBefore = false;
    // Indented code, a paragraph's continuation, or a container's content: never a root-level block.
    if (column >= 4) continue;
    const lead = line[0]!;
    const atx = lead === '#' ? ATX.exec(line) : null;
    const opens = lead === '`' || lead === '~' ? FENCE.exec(line) : null;
    const fenceOpen = opens && !(lead === '`' && opens[2]!.includes('`')) ? opens : null;
    const underline = UNDERLINE.test(line);
    const rule = THEMATIC_BREAK.test(line);
    if (lead === '<') return undefined;
    if (container && column > 0 && (atx || fenceOpen || underline || rule)) return undefined;
    if (underline && !after && (paragraph || container)) return undefined;
    if (atx) {
      let raw = withoutTrailingBlanks(line.slice(atx[0].length));
      const closing = CLOSING_SEQUENCE.exec(raw);
      if (closing) raw = raw.slice(0, closing.index);
      nodes.push({
        type: 'heading',
        depth: atx[1]!.length,
        text: headingTextOf(raw.trimEnd(), inlineText),
        start: first,
        end,
      });
      paragraph = false;
      container = false;
    } else if (fenceOpen) {
      const info = fenceOpen[2]!.replace(/^[ \t]+/, '');
      const word = /^[^ \t]*/.exec(info)![0];
      fence = {
        char: lead,
        length: fenceOpen[1]!.length,
        start: first,
        lang: word.split(/\s/)[0]!.toLowerCase(),
      };
      paragraph = false;
      container = false;
    } else if (rule) {
      paragraph = false;
      container = false;
    } else if (LIST_ITEM.test(line) || lead === '>') {
      paragraph = false;
      container = true;
    } else {
      // Text: a paragraph's first line or continuation (at root, in a container, or lazily continuing one).
      if (container && column === 0 && after) container = false;
      paragraph = true;
    }
  }
  if (fence) nodes.push(fenceNode(text, fence.lang, fence.start, text.length, text.length));
  return nodes;
}

/** `text` without its trailing spaces and tabs (a loop: `/[ \t]+$/` retries at every blank of a long inner run). */
function withoutTrailingBlanks(text: string): string {
  let end = text.length;
  while (end > 0 && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 9)) end--;
  return text.slice(0, end);
}
