import { decodeNamedCharacterReference } from 'decode-named-character-reference';
import { parse, postprocess, preprocess } from 'micromark';
import { decodeNumericCharacterReference } from 'micromark-util-decode-numeric-character-reference';

/**
 * A parser with every CommonMark construct, built once (combining the extensions costs more than a short heading).
 * Its per-document state is reset before each use, as in markdown.ts.
 */
let parser: ReturnType<typeof parse> | undefined;

/** Text inside these is never part of a heading's text in the mdast tree: a link's destination and title, a reference label, an image (its label becomes `alt`). */
const HIDDEN = new Set(['resource', 'referenceString', 'image']);
/** Tokens whose source text becomes text in the tree (as mdast-util-from-markdown's `onexitdata` takes them). */
const TEXT = new Set([
  'data',
  'characterEscapeValue',
  'codeTextData',
  'htmlTextData',
  'autolinkProtocol',
  'autolinkEmail',
]);

/**
 * The text the mdast tree gives a heading whose raw content has inline markup (`**Tools**`, `T&#111;ols`, `` `x` ``):
 * the concatenated text of its phrasing content, as remark's tree would have it (text, inline code and HTML values;
 * link text; no image, link destination or hard break), read from micromark's events without building the tree.
 * `raw` is the heading's content as written; a multi-line one is a setext heading's.
 */
export function headingText(raw: string): string {
  parser ??= parse();
  parser.lazy = {};
  parser.defined = [];
  const doc = raw.includes('\n') ? `${raw}\n---` : `# ${raw}`;
  const events = postprocess(parser.document().write(preprocess()(doc, undefined, true)));
  let text = '';
  let hidden = 0;
  let inHeading = false;
  let afterHardBreak = false;
  let numeric: number | undefined;
  for (const [kind, token, context] of events) {
    const type = token.type;
    if (type === 'atxHeading' || type === 'setextHeading') {
      if (kind === 'exit') break;
      inHeading = true;
      continue;
    }
    if (!inHeading) {
      // The first block is not a heading (it never happens for a heading's own text): the text as written.
      if (kind === 'enter' && type !== 'lineEnding' && type !== 'linePrefix') return raw;
      continue;
    }
    if (type === 'setextHeadingText' && kind === 'exit') {
      // The line ending before the underline is not text.
      break;
    }
    if (HIDDEN.has(type)) {
      hidden += kind === 'enter' ? 1 : -1;
      continue;
    }
    if (kind !== 'exit' || hidden > 0) continue;
    if (TEXT.has(type)) text += context.sliceSerialize(token);
    else if (type === 'characterReferenceMarkerNumeric') numeric = 10;
    else if (type === 'characterReferenceMarkerHexadecimal') numeric = 16;
    else if (type === 'characterReferenceValue') {
      const value = context.sliceSerialize(token);
      text +=
        numeric === undefined
          ? (decodeNamedCharacterReference(value) as string)
          : decodeNumericCharacterReference(value, numeric);
      numeric = undefined;
    } else if (type === 'hardBreakEscape' || type === 'hardBreakTrailing') afterHardBreak = true;
    else if (type === 'lineEnding') {
      // A hard break swallows its line ending; every other one inside the heading is kept as written.
      if (afterHardBreak) afterHardBreak = false;
      else text += context.sliceSerialize(token);
    }
  }
  return text;
}
