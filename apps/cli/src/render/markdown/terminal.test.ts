import { describe, expect, it } from 'vitest';
import { Screen } from '../../../test/helpers/screen.js';
import { renderMarkdown } from './render.js';
import { TerminalAnswer } from './terminal.js';
import { ansi, strip } from './test-style.js';

const SAMPLE =
  '## Steps\n\nFirst *install* it, then run the tests and read the report they print at the end.\n\n' +
  '- one\n- two\n\n| a | b |\n|---|--:|\n| x | 10 |\n\n```sh\necho hi\n```\n\nDone.';

function play(pieces: readonly string[], screen: Screen): void {
  const answer = new TerminalAnswer({
    write: (text) => screen.write(text),
    style: ansi,
    columns: () => screen.columns,
    rows: () => screen.rows,
  });
  for (const piece of pieces) answer.push(piece);
  answer.end();
}

const tokens = (text: string) => text.match(/\s*\S+\s*|\s+/g) ?? [];

describe('TerminalAnswer', () => {
  it('streamed token by token leaves the screen as rendering the whole answer would', () => {
    const screen = new Screen(40, 30);
    play(tokens(SAMPLE), screen);
    expect(screen.text).toBe(strip(renderMarkdown(SAMPLE, { style: ansi, width: 40 })).trimEnd());
  });

  it('at every split of the answer in two, the screen is the same', () => {
    const whole = strip(renderMarkdown(SAMPLE, { style: ansi, width: 40 })).trimEnd();
    for (let i = 0; i <= SAMPLE.length; i++) {
      const screen = new Screen(40, 30);
      play([SAMPLE.slice(0, i), SAMPLE.slice(i)], screen);
      expect(screen.text, `split at ${i}`).toBe(whole);
    }
  });

  it('shows the block still arriving as it comes, wrapped between words', () => {
    const screen = new Screen(20, 30);
    const answer = new TerminalAnswer({
      write: (text) => screen.write(text),
      style: ansi,
      columns: () => 20,
      rows: () => 30,
    });
    answer.push('Once upon a time there was a **bird** ');
    expect(screen.text).toBe('Once upon a time\nthere was a **bird**');
    answer.end();
    expect(screen.text).toBe('Once upon a time\nthere was a bird');
  });

  it('leaves a block taller than the screen as it was shown, written once, and renders the next ones', () => {
    const code = Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\n');
    const source = `\`\`\`\n${code}\n\`\`\`\n\n# After`;
    const screen = new Screen(40, 8);
    play(tokens(source), screen);
    expect(screen.text).toBe(`\`\`\`\n${code}\n\`\`\`\n\nAfter`);
  });

  it('leaves a block as shown when the window is resized under it', () => {
    const screen = new Screen(40, 30);
    const answer = new TerminalAnswer({
      write: (text) => screen.write(text),
      style: ansi,
      columns: () => screen.columns,
      rows: () => 30,
    });
    answer.push('Some **bold** text\n');
    screen.columns = 30;
    answer.push('\nNext *one*');
    answer.end();
    // The first paragraph was shown at the old width: it stays raw. The next was all shown at the new one.
    expect(screen.text).toBe('Some **bold** text\n\nNext one');
  });
});
