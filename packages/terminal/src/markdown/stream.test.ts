import { describe, expect, it } from 'vitest';
import { ansi } from '../../test/ansi-style.js';
import { renderMarkdown } from './render.js';
import { MarkdownStream } from './stream.js';

const SAMPLE = `# Release notes

Version **2.0** brings *faster* starts and a [new guide](https://example.com/guide).

1. Install it
2. Run \`birdie\`:
   - in a terminal
   - or in a pipe

| Flag | Meaning |
|:--|--:|
| --json | events as JSON lines |
| -p | one prompt, then exit |

\`\`\`ts
const greeting: string = "hello";
// a comment

console.log(greeting);
\`\`\`

~~~
no language
~~~

> A quote
> over two lines

---

The end.`;

const options = () => ({ style: ansi, width: 40 });

/** The stream's blocks, joined as the terminal joins them. */
function streamed(pieces: readonly string[]): string {
  const stream = new MarkdownStream(options);
  const blocks: string[] = [];
  for (const piece of pieces) blocks.push(...stream.push(piece));
  blocks.push(...stream.end());
  return blocks.length ? `${blocks.join('\n\n')}\n` : '';
}

describe('MarkdownStream', () => {
  it('split at every character boundary, renders what rendering the whole text at once renders', () => {
    const whole = renderMarkdown(SAMPLE, options());
    for (let i = 0; i <= SAMPLE.length; i++) {
      expect(streamed([SAMPLE.slice(0, i), SAMPLE.slice(i)]), `split at ${i}`).toBe(whole);
    }
  });

  it('one character at a time, and in word-sized tokens, renders the same', () => {
    const whole = renderMarkdown(SAMPLE, options());
    expect(streamed([...SAMPLE])).toBe(whole);
    expect(streamed(SAMPLE.match(/\s*\S+\s*|\s+/g) ?? [])).toBe(whole);
  });

  it('gives a block as soon as it is complete and holds the one still arriving', () => {
    const stream = new MarkdownStream(options);
    expect(stream.push('# Title\n')).toHaveLength(1);
    expect(stream.push('A para')).toEqual([]);
    expect(stream.push('graph\n')).toEqual([]);
    expect(stream.pending).toBe('A paragraph\n');
    expect(stream.push('\n')).toHaveLength(1);
    expect(stream.push('```ts\nlet a = 1\n\n')).toEqual([]);
    expect(stream.push('``')).toEqual([]);
    expect(stream.push('`\n')).toHaveLength(1);
    expect(stream.push('- a\n\n')).toEqual([]); // a list may go on after a blank line
    expect(stream.push('next\n')).toHaveLength(1); // until another block begins
    expect(stream.pending).toBe('next\n');
    expect(stream.end()).toHaveLength(1);
    expect(stream.pending).toBe('');
  });

  it('does not take a shorter fence, or one of the other character, inside code for its end', () => {
    const stream = new MarkdownStream(options);
    expect(stream.push('````md\n```\n~~~~\n')).toEqual([]);
    expect(stream.push('````\n')).toHaveLength(1);
  });
});
