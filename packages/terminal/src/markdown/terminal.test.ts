import { Terminal as Emulator } from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { ansi, strip } from '../../test/ansi-style.js';
import { renderMarkdown } from './render.js';
import { TerminalAnswer } from './terminal.js';

/** A terminal emulator (xterm.js, headless): what a user sees once cursor moves and erasures are applied. */
class Screen {
  private readonly emulator: Emulator;
  private pending = Promise.resolve();

  constructor(
    public columns: number,
    readonly rows: number,
  ) {
    // A pty turns \n into \r\n (onlcr); the emulator does it here.
    this.emulator = new Emulator({
      cols: columns,
      rows,
      scrollback: 1000,
      convertEol: true,
      allowProposedApi: true,
    });
  }

  write(data: string): void {
    this.pending = new Promise((resolve) => this.emulator.write(data, resolve));
  }

  resize(columns: number): void {
    this.columns = columns;
    this.emulator.resize(columns, this.rows);
  }

  async text(): Promise<string> {
    await this.pending;
    const buffer = this.emulator.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }
}

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
  it('streamed token by token leaves the screen as rendering the whole answer would', async () => {
    const screen = new Screen(40, 30);
    play(tokens(SAMPLE), screen);
    expect(await screen.text()).toBe(strip(renderMarkdown(SAMPLE, { style: ansi, width: 40 })).trimEnd());
  });

  it('at every split of the answer in two, the screen is the same', async () => {
    const whole = strip(renderMarkdown(SAMPLE, { style: ansi, width: 40 })).trimEnd();
    for (let i = 0; i <= SAMPLE.length; i++) {
      const screen = new Screen(40, 30);
      play([SAMPLE.slice(0, i), SAMPLE.slice(i)], screen);
      expect(await screen.text(), `split at ${i}`).toBe(whole);
    }
  });

  it('shows the block still arriving as it comes, wrapped between words', async () => {
    const screen = new Screen(20, 30);
    const answer = new TerminalAnswer({
      write: (text) => screen.write(text),
      style: ansi,
      columns: () => 20,
      rows: () => 30,
    });
    answer.push('Once upon a time there was a **bird** ');
    expect(await screen.text()).toBe('Once upon a time\nthere was a **bird**');
    answer.end();
    expect(await screen.text()).toBe('Once upon a time\nthere was a bird');
  });

  it('leaves a block taller than the screen as it was shown, written once, and renders the next ones', async () => {
    const code = Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\n');
    const source = `\`\`\`\n${code}\n\`\`\`\n\n# After`;
    const screen = new Screen(40, 8);
    play(tokens(source), screen);
    expect(await screen.text()).toBe(`\`\`\`\n${code}\n\`\`\`\n\nAfter`);
  });

  it('leaves a block as shown when the window is resized under it', async () => {
    const screen = new Screen(40, 30);
    const answer = new TerminalAnswer({
      write: (text) => screen.write(text),
      style: ansi,
      columns: () => screen.columns,
      rows: () => 30,
    });
    answer.push('Some **bold** text\n');
    screen.resize(30);
    answer.push('\nNext *one*');
    answer.end();
    // The first paragraph was shown at the old width: it stays raw. The next was all shown at the new one.
    expect(await screen.text()).toBe('Some **bold** text\n\nNext one');
  });
});
