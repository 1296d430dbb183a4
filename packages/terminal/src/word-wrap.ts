/**
 * Streams text to a terminal without breaking words across lines: a word that would not fit on the current line
 * starts the next one (the terminal would otherwise cut it wherever the edge falls). Text arrives in arbitrary
 * pieces (tokens), so the word being written is held until a space or line break ends it. Words longer than a
 * line, and text with escape sequences, pass through as they are.
 */
export class WordWrap {
  private word = '';
  /** Spaces after the last word: written before the next word, or dropped when it moves to the next line. */
  private spaces = '';

  constructor(
    private readonly write: (text: string) => void,
    private readonly width: () => number,
    /** Where the cursor is on its line when the first piece comes (after a label, say). */
    private column = 0,
  ) {}

  push(text: string): void {
    for (const char of text) {
      if (char === '\n') {
        this.flushWord();
        this.spaces = '';
        this.write('\n');
        this.column = 0;
      } else if (char === ' ' || char === '\t') {
        this.flushWord();
        this.spaces += char;
      } else this.word += char;
    }
    // A long run without spaces is not held back: it is written as it comes.
    if (this.word.length > this.width()) this.flushWord();
  }

  /** Writes what is held (the end of the answer). */
  end(): void {
    this.flushWord();
    if (this.spaces) this.write(this.spaces);
    this.column += this.spaces.length;
    this.spaces = '';
  }

  /** The cursor is at the start of a line again (something else printed a line). */
  reset(): void {
    this.end();
    this.column = 0;
  }

  private flushWord(): void {
    if (!this.word) return;
    const width = this.width();
    const length = [...this.word].length;
    if (this.column > 0 && this.column + this.spaces.length + length > width && length <= width) {
      this.write('\n');
      this.column = 0;
    } else if (this.spaces) {
      this.write(this.spaces);
      this.column += this.spaces.length;
    }
    this.spaces = '';
    this.write(this.word);
    this.column = (this.column + length) % Math.max(1, width);
    this.word = '';
  }
}

/**
 * A whole text (no escape sequences) wrapped between words at `width`, its first line starting at column `start`:
 * for messages printed in one piece, such as errors after their label.
 */
export function wrapWords(text: string, width: number, start = 0): string {
  let wrapped = '';
  const wrap = new WordWrap(
    (piece) => {
      wrapped += piece;
    },
    () => width,
    start,
  );
  wrap.push(text);
  wrap.end();
  return wrapped;
}
