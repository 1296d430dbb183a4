import { prng } from './mutate.js';

/**
 * Lines that decide or blur Markdown's block structure (headings in and out of containers, fences of every shape,
 * setext underlines, HTML, indentation with tabs, hard breaks), and the lines tool blocks are made of.
 */
const LINES: readonly string[] = [
  '## Tools',
  '## tools',
  '### tool_a',
  '### tool_b',
  '# Title',
  '####### seven',
  '#hashtag',
  ' ## Tools',
  '   ### spaced',
  '    ## indented code',
  '## Tools ##',
  '## Tools #',
  '## **Tools**',
  '## T&#111;ols',
  '## Server Tools',
  '##\tTools',
  '## Tools\\#',
  '### `read_file`',
  '### a\\_b',
  '### [x](http://y) z',
  '### ![img](u) t',
  '##',
  '## #',
  '```',
  '```json',
  '```yaml',
  '~~~',
  '~~~~md',
  '````',
  '  ```',
  '   ~~~ x y',
  '``` a`b',
  '    ```',
  '```  ',
  'description: Reads a file',
  'entrypoint: bash:echo "{a}"',
  'schema:',
  '  type: object',
  '  properties:',
  '    a: {type: string}',
  '  required: [a]',
  '{"type": "object"}',
  '  - a',
  'text line',
  'Tools',
  'tools',
  'Some text  ',
  'tool\\',
  's',
  '- item',
  '* item',
  '+ item',
  '1. step',
  '2) step',
  '-',
  '  - nested',
  '   1. nested',
  '> quote',
  ' > quote',
  '>',
  '---',
  '===',
  '***',
  '- - -',
  '___',
  ' ---',
  '  ===',
  '--',
  '<div>',
  '</div>',
  '<!-- comment',
  '-->',
  '<b>x</b> y',
  '    code',
  '\tcode',
  ' \t## tab',
  '\t```',
  '',
  '',
  '',
  '  ',
  '\t',
  '[a]: /url',
  '[a]:',
  '"quoted"',
  '(paren) text',
];

/** `count` Markdown bodies of 1–30 such lines, deterministic for a seed; some with CRLF, some without a final newline. */
export function generateBodies(count: number, seed: number): string[] {
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const random = prng(seed + i);
    const n = 1 + Math.floor(random() * 30);
    const lines = Array.from({ length: n }, () => LINES[Math.floor(random() * LINES.length)]!);
    const eol = random() < 0.15 ? '\r\n' : '\n';
    bodies.push(lines.join(eol) + (random() < 0.8 ? eol : ''));
  }
  return bodies;
}

const PIECES: readonly string[] = [
  'Tools',
  'tools',
  'To',
  'ols',
  'T',
  'o',
  'ls',
  '&#116;',
  '&#X6c;',
  ' ',
  '  ',
  '\t',
  '*',
  '**',
  '_',
  '__',
  '`',
  '``',
  '\\',
  '\\*',
  '\\_',
  '&#111;',
  '&#x6F;',
  '&amp;',
  '&nosuch;',
  '&copy;',
  '[',
  ']',
  '](u)',
  '](u "t")',
  '[ref]',
  '![',
  '<b>',
  '</b>',
  '<http://x.y>',
  '<a@b.c>',
  '<!-- c -->',
  '#',
  ' #',
  'a',
  'read_file',
  '\n',
  '  \n',
  '\\\n',
];

/**
 * `count` raw heading contents with inline markup, deterministic for a seed, shaped as the readers pass them: trimmed
 * (a heading's content never starts or ends with blanks) and without a blank line (which would end a setext heading's
 * text); a piece list that gives nothing else is drawn again.
 */
export function generateHeadings(count: number, seed: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const random = prng(seed + i);
    const n = 1 + Math.floor(random() * 8);
    let raw = '';
    for (let k = 0; k < n; k++) raw += PIECES[Math.floor(random() * PIECES.length)]!;
    raw = raw.trim();
    if (raw && !/\n[ \t]*\n/.test(raw)) out.push(raw);
  }
  return out;
}

/** One letter of "tools" as it may be written: itself in either case, or a decimal or hexadecimal character reference. */
function spell(letter: string, random: () => number): string {
  const pick = random();
  const code = letter.charCodeAt(0);
  if (pick < 0.3) return letter;
  if (pick < 0.5) return letter.toUpperCase();
  if (pick < 0.75) return `&#${code};`;
  return `&#x${code.toString(16)};`;
}

const WRAPS: ReadonlyArray<readonly [string, string]> = [
  ['*', '*'],
  ['**', '**'],
  ['_', '_'],
  ['`', '`'],
  ['[', '](u)'],
  ['<b>', '</b>'],
  ['', ''],
];

/**
 * `count` raw heading contents that spell "tools" through markup (character references, emphasis, code, links, HTML,
 * blanks around), deterministic for a seed: most of them are a Tools heading's text, some are not (the markup stays
 * text); the references tell which.
 */
export function generateToolsHeadings(count: number, seed: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const random = prng(seed + i);
    const letters = [...'tools'].map((letter) => spell(letter, random));
    const from = Math.floor(random() * 5);
    const to = from + 1 + Math.floor(random() * (5 - from));
    const [open, close] = WRAPS[Math.floor(random() * WRAPS.length)]!;
    const word = `${letters.slice(0, from).join('')}${open}${letters.slice(from, to).join('')}${close}${letters.slice(to).join('')}`;
    out.push(random() < 0.3 ? `${word} #` : word);
  }
  return out;
}
