import { parse, preprocess } from 'micromark';
import { subtokenize } from 'micromark-util-subtokenize';
import type { Event, Token } from 'micromark-util-types';
import type { OutlineNode } from './outline.js';
import { lineEnd, nextLine, type Source } from './source.js';

/**
 * Inline constructs never change block structure, so the outline parse turns them off (remark's tokenizer, micromark,
 * otherwise spends most of its time on them).
 */
const INLINE = [
  'attention',
  'autolink',
  'characterEscape',
  'characterReference',
  'codeText',
  'hardBreakEscape',
  'htmlText',
  'labelEnd',
  'labelStartImage',
  'labelStartLink',
];
/** Characters that may make a heading's text differ from its source; an underscore inside a word (`read_file`) cannot. */
const MARKUP = /[\\`*&<[!\n]|(?:^|[^\p{L}\p{N}])_|_(?:$|[^\p{L}\p{N}])/u;

/**
 * One parser for every document: building one combines the syntax extensions, which costs more than parsing a small
 * file. Its only per-document state is `lazy` (lazy-line flags, reset below) and `defined` (link definitions, filled
 * only by the content pass this module never runs; reset anyway).
 */
const parser = parse({ extensions: [{ disable: { null: INLINE } }] });
const CONTAINERS = new Set(['blockQuote', 'listOrdered', 'listUnordered']);

/** Text of a heading as the mdast tree would give it, for the rare heading that has inline markup. */
export type InlineText = (raw: string) => string;

/**
 * Root-level headings and fenced code blocks of the body, from micromark — the tokenizer under remark-parse — parsed
 * only as far as needed: the block (flow) level, one subtokenize pass, no paragraph or inline content, no mdast.
 * `outlineFromMdast` (the full remark tree) gives the same nodes; tests hold the two together.
 */
export function outlineFromMicromark(
  source: Source,
  bodyStart: number,
  inlineText: InlineText,
): OutlineNode[] {
  const body = source.text.slice(bodyStart);
  parser.lazy = {};
  parser.defined = [];
  const events = parser.document().write(preprocess()(body, undefined, true));
  subtokenize(events);
  const nodes: OutlineNode[] = [];
  let depth = 0;
  for (let index = 0; index < events.length; index++) {
    const [kind, token] = events[index]!;
    if (CONTAINERS.has(token.type)) {
      depth += kind === 'enter' ? 1 : -1;
      continue;
    }
    if (kind !== 'enter' || depth > 0) continue;
    if (token.type === 'atxHeading' || token.type === 'setextHeading') {
      nodes.push(heading(events, index, token, body, bodyStart, inlineText));
    } else if (token.type === 'codeFenced') {
      nodes.push(fence(events, index, token, source, body, bodyStart));
    }
  }
  return nodes;
}

function closing(events: Event[], index: number, token: Token): number {
  let end = index + 1;
  while (end < events.length && events[end]![1] !== token) end++;
  return end;
}

function heading(
  events: Event[],
  index: number,
  token: Token,
  body: string,
  base: number,
  inlineText: InlineText,
) {
  const end = closing(events, index, token);
  let depth = 0;
  let raw = '';
  for (let i = index + 1; i < end; i++) {
    const [kind, child] = events[i]!;
    if (kind !== 'enter') continue;
    if (child.type === 'atxHeadingSequence' && depth === 0) depth = child.end.offset - child.start.offset;
    else if (child.type === 'setextHeadingLineSequence') depth = body[child.start.offset] === '=' ? 1 : 2;
    else if (child.type === 'atxHeadingText' || child.type === 'setextHeadingText') {
      raw = body.slice(child.start.offset, child.end.offset);
    }
  }
  // Markup, escapes and references change the text the tree reports; plain text is already what it reports.
  const text = MARKUP.test(raw) ? inlineText(raw) : raw;
  return {
    type: 'heading',
    depth,
    text,
    start: base + token.start.offset,
    end: base + token.end.offset,
  } as const;
}

function fence(events: Event[], index: number, token: Token, source: Source, body: string, base: number) {
  const end = closing(events, index, token);
  let lang = '';
  let fences = 0;
  let closeStart = base + token.end.offset;
  for (let i = index + 1; i < end; i++) {
    const [kind, child] = events[i]!;
    if (kind !== 'enter') continue;
    if (child.type === 'codeFencedFence' && ++fences === 2) closeStart = base + child.start.offset;
    else if (child.type === 'codeFencedFenceInfo' && !lang) {
      lang = body.slice(child.start.offset, child.end.offset).split(/\s/)[0]!.toLowerCase();
    }
  }
  const { text } = source;
  const start = base + token.start.offset;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const indent = start - lineStart + /^ */.exec(text.slice(start, start + 4))![0].length;
  const lines: string[] = [];
  const contentStart = nextLine(text, start);
  const contentEnd = fences === 2 ? text.lastIndexOf('\n', closeStart - 1) + 1 : base + token.end.offset;
  for (let offset = contentStart; offset < contentEnd; ) {
    const endOfLine = lineEnd(text, offset);
    const line = text.slice(offset, Math.min(endOfLine, contentEnd));
    let strip = 0;
    while (strip < indent && line[strip] === ' ') strip++;
    lines.push(line.slice(strip));
    offset = nextLine(text, offset);
  }
  return { type: 'fence', lang, value: lines.join('\n'), start, end: base + token.end.offset } as const;
}
