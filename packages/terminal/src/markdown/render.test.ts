import { describe, expect, it } from 'vitest';
import { ansi, plain, strip } from '../../test/ansi-style.js';
import { renderMarkdown } from './render.js';

const render = (source: string, width = 60) => renderMarkdown(source, { style: ansi, width });
const text = (source: string, width = 60) => strip(render(source, width));

describe('renderMarkdown', () => {
  it('shows headings without their marks, bold, the first two levels in color and the first underlined', () => {
    const out = render('# One\n\n## Two\n\n### Three\n');
    expect(strip(out)).toBe('One\n\nTwo\n\nThree\n');
    expect(out).toContain('\x1b[1m\x1b[4m\x1b[36mOne\x1b[39m\x1b[24m\x1b[22m');
    expect(out).toContain('\x1b[1m\x1b[36mTwo\x1b[39m\x1b[22m');
    expect(out).toContain('\x1b[1mThree\x1b[22m');
  });

  it('styles emphasis, strong, strikethrough and inline code, and drops their marks', () => {
    const out = render('Some *soft*, **loud**, ~~gone~~ and `code` here.\n');
    expect(strip(out)).toBe('Some soft, loud, gone and code here.\n');
    expect(out).toContain('\x1b[3msoft\x1b[23m');
    expect(out).toContain('\x1b[1mloud\x1b[22m');
    expect(out).toContain('\x1b[9mgone\x1b[29m');
    expect(out).toContain('\x1b[36mcode\x1b[39m');
  });

  it('shows a link as its text and its URL in parentheses, an autolink and a reference link too', () => {
    expect(text('See [the docs](https://example.com/docs) or https://example.org.\n', 80)).toBe(
      'See the docs (https://example.com/docs) or https://example.org.\n',
    );
    expect(text('Read [the guide][g].\n\n[g]: https://example.com/guide\n')).toBe(
      'Read the guide (https://example.com/guide).\n',
    );
  });

  it('numbers ordered lists from their start, aligned, nests lists under their item with another bullet', () => {
    const source = '8. eight\n9. nine\n   - inner a\n   - inner b\n     1. deep\n10. ten\n';
    expect(text(source)).toBe(' 8. eight\n 9. nine\n    ◦ inner a\n    ◦ inner b\n      1. deep\n10. ten\n');
    expect(text('- [x] done\n- [ ] to do\n')).toBe('• ☑ done\n• ☐ to do\n');
    expect(text('- a\n\n- b\n')).toBe('• a\n\n• b\n');
  });

  it('wraps paragraphs and list items between words at the width, continuing under the item text', () => {
    expect(text('one two three four five six\n', 10)).toBe('one two\nthree four\nfive six\n');
    expect(text('- one two three four\n', 10)).toBe('• one two\n  three\n  four\n');
  });

  it('lays out tables with the header ruled, cells aligned as the delimiter row says', () => {
    const source = '| Name | Count | Note |\n|:--|--:|:-:|\n| apple | 3 | ok |\n| kiwi | 12 | fine |\n';
    expect(text(source)).toBe(
      [
        'Name  │ Count │ Note',
        '──────┼───────┼─────',
        'apple │     3 │  ok',
        'kiwi  │    12 │ fine',
        '',
      ].join('\n'),
    );
    expect(render(source)).toContain('\x1b[1mName\x1b[22m');
  });

  it('wraps a wide cell inside its column so the table fits the width', () => {
    const source =
      '| Key | Description |\n|---|---|\n| a | the first letter of the alphabet, said to come from an ox |\n';
    const lines = text(source, 30).trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(30);
    expect(lines[0]).toBe('Key │ Description');
    expect(lines[2]).toBe('a   │ the first letter of the');
    expect(
      lines
        .slice(2)
        .map((l) => l.slice(6).trim())
        .join(' '),
    ).toBe('the first letter of the alphabet, said to come from an ox');
    expect(lines.slice(3).every((l) => l.startsWith('    │ '))).toBe(true);
  });

  it('highlights code blocks of a known language, under a fence line naming it', () => {
    const out = render('```ts\nconst answer: number = 42; // yes\n```\n');
    expect(strip(out)).toBe('```ts\nconst answer: number = 42; // yes\n```\n');
    expect(out).toContain('\x1b[35mconst\x1b[39m');
    expect(out).toContain('\x1b[33m42\x1b[39m');
    expect(out).toContain('\x1b[90m// yes\x1b[39m');
    expect(render('```python\ndef f():\n    return "s"\n```\n')).toContain('\x1b[32m"s"\x1b[39m');
  });

  it('keeps code without a language, or in one it does not know, as it is', () => {
    expect(render('```\nplain *text*\n```\n')).toBe('\x1b[2m```\x1b[22m\nplain *text*\n\x1b[2m```\x1b[22m\n');
    const unknown = render('```klingon\nqapla const 42\n```\n');
    expect(strip(unknown)).toBe('```klingon\nqapla const 42\n```\n');
    expect(unknown).toContain('\nqapla const 42\n');
  });

  it('closes a multi-line token color at each line end', () => {
    const out = render('```js\n/* one\n   two */\nx\n```\n');
    expect(out).toContain('\x1b[90m/* one\x1b[39m\n\x1b[90m   two */\x1b[39m\nx\n');
  });

  it('prefixes quotes and draws rules', () => {
    expect(text('> said\n> this\n\n---\n')).toBe('│ said this\n\n────────────────────────────────────────\n');
  });

  it('with colors off gives the text without any escape', () => {
    const out = renderMarkdown('# T\n\n**b** and `c`\n\n```ts\nlet x = 1\n```\n', {
      style: plain,
      width: 40,
    });
    expect(out).toBe('T\n\nb and c\n\n```ts\nlet x = 1\n```\n');
  });
});
