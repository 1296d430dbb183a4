import { parse, preprocess } from 'micromark';
import { subtokenize } from 'micromark-util-subtokenize';
import type { Event, Point as MicromarkPoint, Token } from 'micromark-util-types';
import { MAX_INLINE_HEADING } from './limits.js';
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

/**
 * Characters that may make a heading's text differ from its source (NUL, which CommonMark replaces with U+FFFD,
 * included); an underscore inside a word (`read_file`) cannot.
 */
const MARKUP = /[\\`*&<[!\n\0]|(?:^|[^\p{L}\p{N}])_|_(?:$|[^\p{L}\p{N}])/u;

/**
 * One parser for every document: building one combines the syntax extensions, which costs more than parsing a small
 * file. Its only per-document state is `lazy` (lazy-line flags, reset below) and `defined` (link definitions, filled
 * only by the content pass this module never runs; reset anyway).
 */
const parser = parse({ extensions: [{ disable: { null: INLINE } }] });
const CONTAINERS = new Set(['blockQuote', 'listOrdered', 'listUnordered']);

/** Text of a heading as the mdast tree would give it, for the rare heading that has inline markup. */
export type InlineText = (raw: string) => string;

/** A heading's text from its raw content (trailing blanks removed): markup, escapes and references change the text the tree reports; plain text is already what it reports. */
export function headingTextOf(raw: string, inlineText: InlineText): string {
  return raw.length <= MAX_INLINE_HEADING && MARKUP.test(raw) ? inlineText(raw) : raw;
}

/**
 * A fenced code block's node: its content runs from the line after the opening fence (at `start`, after the
 * indentation) to `contentEnd`; up to the opening fence's indentation (in columns) is removed from each content line,
 * as CommonMark says — a tab that reaches past it leaves the columns it still covers as spaces — and lines keep their
 * own endings (CRLF stays CRLF), like the mdast value.
 */
export function fenceNode(text: string, lang: string, start: number, end: number, contentEnd: number) {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const indent = start - lineStart + /^ */.exec(text.slice(start, start + 4))![0].length;
  let value = '';
  for (let offset = nextLine(text, start); offset < contentEnd; offset = nextLine(text, offset)) {
    const eol = lineEnd(text, offset);
    const line = text.slice(offset, Math.min(eol, contentEnd));
    const next = nextLine(text, offset);
    value += stripIndent(line, indent) + (next < contentEnd ? text.slice(eol, next) : '');
  }
  // CommonMark replaces NUL with U+FFFD (mdast's value has it so).
  if (value.includes('\0')) value = value.replaceAll('\0', '\uFFFD');
  return { type: 'fence', lang, value, start, end } as const;
}

/** `line` without its first `columns` columns of indentation (tab stops every 4 columns). */
function stripIndent(line: string, columns: number): string {
  let column = 0;
  let index = 0;
  while (column < columns && index < line.length) {
    const char = line[index];
    if (char === ' ') column++;
    else if (char === '\t') {
      const stop = column + 4 - (column % 4);
      if (stop > columns) return ' '.repeat(stop - columns) + line.slice(index + 1);
      column = stop;
    } else break;
    index++;
  }
  return line.slice(index);
}

/** Blank indentation, then a character that starts no block construct (not `#`, `` ` ``, `~`, `<`, `>`, `-`, `+`, `*`, `=`, `_`, `[`, a digit, …). */
const INERT_LEAD = /^[ \t]*[A-Za-z!"$%&'(),./;?@^{}]/;

const LONE_CR = /\r(?!\n)/;

/** The elided body: its text, and for each of its lines the source lines it stands for and how much of them is kept. */
export interface ElidedBody {
  text: string;
  /** First and last body line (0-based) behind each elided line. */
  first: number[];
  last: number[];
  /** Characters kept of a cut line, or -1 for a line kept whole. */
  kept: number[];
}

/**
 * The body as micromark needs to see it to find the block structure. A line whose first non-blank character starts no
 * block construct (`INERT_LEAD`: a letter, `{`, `"`, …) can only be paragraph text or the inside of a code or HTML
 * block: what follows that character cannot open, close or interrupt any block, except an HTML block's end marker,
 * which always holds `>`. So such lines without `>` are cut after their first character, and a run of them indented at
 * least as deep as its first line becomes that one line: whatever block the first line is in (paragraph, code, HTML, at
 * any container depth), the others stay in it, so the block state after the run is the state after its first line.
 * Every line that can carry structure is kept whole. Link reference definitions may span lines, so a body with `]:` is
 * kept whole.
 */
export function elide(body: string): ElidedBody {
  const lines = body.split('\n');
  const out: ElidedBody = { text: body, first: [], last: [], kept: [] };
  // A lone CR ends a line for micromark and not for this split: such a body is read whole, and mapped back by offset.
  if (body.includes(']:') || LONE_CR.test(body)) {
    for (let i = 0; i < lines.length; i++) {
      out.first.push(i);
      out.last.push(i);
      out.kept.push(-1);
    }
    return out;
  }
  const text: string[] = [];
  let runIndent = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const lead = INERT_LEAD.exec(line);
    const inert = lead !== null && !line.includes('>');
    const n = text.length - 1;
    if (inert && n >= 0 && out.kept[n]! >= 0 && out.last[n] === i - 1 && lead[0].startsWith(runIndent)) {
      out.last[n] = i;
      continue;
    }
    out.first.push(i);
    out.last.push(i);
    if (inert) {
      runIndent = lead[0].slice(0, -1);
      out.kept.push(lead[0].length);
      text.push(line.endsWith('\r') ? `${lead[0]}\r` : lead[0]);
    } else {
      out.kept.push(-1);
      text.push(line);
    }
  }
  out.text = text.join('\n');
  return out;
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
  const body = source.text.slice(bodyStart);
  const view = elide(body);
  const firstLine = source.lineStarts.indexOf(bodyStart);
  // Offset in the source of a micromark point: past the kept prefix of a cut line is the end of its last source line.
  // A view kept whole maps by offset (micromark's lines, which a lone CR ends, are not the source's).
  const at = (point: MicromarkPoint): number => {
    if (view.text === body) return bodyStart + point.offset;
    const line = point.line - 1;
    const cut = view.kept[line]!;
    if (cut >= 0 && point.column - 1 >= cut)
      return lineEnd(source.text, source.lineStarts[firstLine + view.last[line]!]!);
    return source.lineStarts[firstLine + view.first[line]!]! + point.column - 1;
  };
  parser.lazy = {};
  parser.defined = [];
  const events = parser.document().write(preprocess()(view.text, undefined, true));
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
  return {
    type: 'heading',
    depth,
    text: headingTextOf(raw, inlineText),
    start: at(token.start),
    end: at(token.end),
  } as const;
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
  return fenceNode(text, lang, start, end, contentEnd);
}
