import { parse, preprocess } from 'micromark';
import { subtokenize } from 'micromark-util-subtokenize';
import type { Event, Point as MicromarkPoint, Token } from 'micromark-util-types';
import type { OutlineNode } from './outline.js';
import { lineEnd, nextLine, type Source } from './source.js';

/** Inline constructs never change block structure, so the outline parse turns them off. */
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
 * The body as micromark needs to see it to find the block structure. A line whose first non-blank character is an
 * ASCII letter can only be paragraph text (or the inside of a code or HTML block): what follows that letter cannot open,
 * close or interrupt any block — except an HTML block's end marker, which always holds `>`. So such lines without `>` are
 * cut after their first letter; every line keeps its number and its indentation, and every line that can carry
 * structure is kept whole. (Link reference definitions may span lines, so a body with `]:` is kept whole.)
 * `kept[i]` is how many characters of line i survive, or -1 when it is whole.
 */
export function elide(body: string): { text: string; kept: number[] } {
  const lines = body.split('\n');
  const kept = new Array<number>(lines.length).fill(-1);
  if (body.includes(']:')) return { text: body, kept };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const lead = /^[ \t]*[A-Za-z]/.exec(line);
    if (!lead || line.includes('>') || lead[0].length === line.length) continue;
    kept[i] = lead[0].length;
    lines[i] = line.endsWith('\r') ? `${lead[0]}\r` : lead[0];
  }
  return { text: lines.join('\n'), kept };
}

/**
 * Root-level headings and fenced code blocks of the body, from micromark — the tokenizer under remark-parse — parsed
 * only as far as needed: the block level of the elided body, one subtokenize pass, no paragraph or inline content, no
 * mdast. Positions map back to the source. `outlineFromMdast` (the full remark tree) gives the same nodes; tests hold
 * the two together.
 */
export function outlineFromMicromark(
  source: Source,
  bodyStart: number,
  inlineText: InlineText,
): OutlineNode[] {
  const { text, kept } = elide(source.text.slice(bodyStart));
  const firstLine = source.lineStarts.indexOf(bodyStart);
  // Offset in the source of a micromark point: on a cut line, anything past the kept prefix is the line's end.
  const at = (point: MicromarkPoint): number => {
    const lineStart = source.lineStarts[firstLine + point.line - 1]!;
    const cut = kept[point.line - 1]!;
    if (cut >= 0 && point.column - 1 >= cut) return lineEnd(source.text, lineStart);
    return lineStart + point.column - 1;
  };
  parser.lazy = {};
  parser.defined = [];
  const events = parser.document().write(preprocess()(text, undefined, true));
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
      nodes.push(heading(events, index, token, source, at, inlineText));
    } else if (token.type === 'codeFenced') {
      nodes.push(fence(events, index, token, source, at));
    }
  }
  return nodes;
}

type At = (point: MicromarkPoint) => number;

function closing(events: Event[], index: number, token: Token): number {
  let end = index + 1;
  while (end < events.length && events[end]![1] !== token) end++;
  return end;
}

function heading(
  events: Event[],
  index: number,
  token: Token,
  source: Source,
  at: At,
  inlineText: InlineText,
) {
  const end = closing(events, index, token);
  let depth = 0;
  let raw = '';
  for (let i = index + 1; i < end; i++) {
    const [kind, child] = events[i]!;
    if (kind !== 'enter') continue;
    if (child.type === 'atxHeadingSequence' && depth === 0) depth = child.end.offset - child.start.offset;
    else if (child.type === 'setextHeadingLineSequence') depth = source.text[at(child.start)] === '=' ? 1 : 2;
    else if (child.type === 'atxHeadingText' || child.type === 'setextHeadingText') {
      raw = source.text.slice(at(child.start), at(child.end)).trimEnd();
    }
  }
  // Markup, escapes and references change the text the tree reports; plain text is already what it reports.
  const text = MARKUP.test(raw) ? inlineText(raw) : raw;
  return { type: 'heading', depth, text, start: at(token.start), end: at(token.end) } as const;
}

function fence(events: Event[], index: number, token: Token, source: Source, at: At) {
  const close = closing(events, index, token);
  const { text } = source;
  let lang = '';
  let fences = 0;
  const start = at(token.start);
  const end = at(token.end);
  let contentEnd = end;
  for (let i = index + 1; i < close; i++) {
    const [kind, child] = events[i]!;
    if (kind !== 'enter') continue;
    if (child.type === 'codeFencedFence' && ++fences === 2) {
      const closeStart = at(child.start);
      contentEnd = text.lastIndexOf('\n', closeStart - 1) + 1;
    } else if (child.type === 'codeFencedFenceInfo' && !lang) {
      lang = text.slice(at(child.start), at(child.end)).split(/\s/)[0]!.toLowerCase();
    }
  }
  // Up to the opening fence's indentation is removed from each content line, as CommonMark says.
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const indent = start - lineStart + /^ */.exec(text.slice(start, start + 4))![0].length;
  const lines: string[] = [];
  for (let offset = nextLine(text, start); offset < contentEnd; offset = nextLine(text, offset)) {
    const line = text.slice(offset, Math.min(lineEnd(text, offset), contentEnd));
    let strip = 0;
    while (strip < indent && line[strip] === ' ') strip++;
    lines.push(line.slice(strip));
  }
  return { type: 'fence', lang, value: lines.join('\n'), start, end } as const;
}
