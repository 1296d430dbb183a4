import type { AnswerSink } from '../answer-sink.js';
import type { Style } from '../style.js';
import { rowsOf } from '../text-width.js';
import { WordWrap } from '../word-wrap.js';
import { MarkdownStream } from './stream.js';

export interface TerminalAnswerOptions {
  write(text: string): void;
  style: Style;
  /** The terminal's size, read each time (the window may be resized while an answer streams). */
  columns(): number;
  rows(): number;
}

/**
 * A streamed answer rendered as Markdown in a terminal. Complete blocks are written rendered; the block still
 * arriving is shown as it comes (raw, wrapped between words) and, once complete, erased and written rendered in
 * its place. Erasing needs to know the rows the raw text takes, so a raw block taller than the screen, or one the
 * window was resized under, is left as it was shown: never written twice, never half erased.
 */
export class TerminalAnswer implements AnswerSink {
  private readonly stream: MarkdownStream;
  /** The pending block's source, and what of it was written to the screen (with the breaks wrapping added). */
  private tailSource = '';
  private tailOutput = '';
  private tailShown = false;
  private tailWidth: number;
  /** The tail's rows on screen cannot be counted (written at two widths). */
  private tailDirty = false;
  private raw: WordWrap;
  private blocks = 0;
  /** The blank line that goes before the next block is on screen already. */
  private separated = false;

  constructor(private readonly o: TerminalAnswerOptions) {
    this.stream = new MarkdownStream(() => ({ style: o.style, width: o.columns() }));
    this.tailWidth = o.columns();
    this.raw = this.rawWriter();
  }

  push(text: string): void {
    const before = this.stream.pending;
    const done = this.stream.push(text);
    if (done.length === 0) {
      this.showRaw(text);
      return;
    }
    const pending = this.stream.pending;
    if (this.erasable()) {
      this.erase();
      this.writeBlocks(done);
      this.newTail();
      this.showRaw(pending);
      return;
    }
    // Left as shown: the completed blocks' remaining source goes out raw, like the rest of them.
    this.blocks += done.length;
    this.separated = true;
    const doneSource = before.length + text.length - pending.length;
    if (doneSource >= before.length) {
      this.raw.push(text.slice(0, doneSource - before.length));
      this.newTail();
      this.showRaw(pending);
      return;
    }
    // The next block began inside what is on screen already: count from its first line on (if its rows can be).
    if (this.o.columns() !== this.tailWidth) this.tailDirty = true;
    const shown = pending.slice(0, pending.length - text.length);
    let output = '';
    new WordWrap((s) => {
      output += s;
    }, this.o.columns).push(shown);
    this.tailSource = shown;
    this.tailOutput = output;
    this.tailShown = true;
    this.raw.push(text);
    this.tailSource += text;
  }

  end(): void {
    const done = this.stream.end();
    if (this.erasable()) {
      this.erase();
      this.writeBlocks(done);
    } else {
      this.raw.end();
      if (this.tailOutput && !this.tailOutput.endsWith('\n')) this.o.write('\n');
      this.blocks += done.length;
    }
    this.newTail();
    this.separated = false;
  }

  private showRaw(text: string): void {
    this.tailSource += text;
    if (this.tailShown) {
      this.raw.push(text);
      return;
    }
    // Nothing is shown of a block until it has more than blank lines.
    if (!this.tailSource.trim()) return;
    if (this.blocks > 0 && !this.separated) {
      this.o.write('\n');
      this.separated = true;
    }
    this.tailShown = true;
    this.raw.push(this.tailSource);
  }

  private erasable(): boolean {
    if (!this.tailOutput) return true;
    const columns = this.o.columns();
    return (
      !this.tailDirty && columns === this.tailWidth && rowsOf(this.tailOutput, columns) <= this.o.rows() - 1
    );
  }

  /** Moves to the first row of the raw tail and clears from there to the end of the screen. */
  private erase(): void {
    if (!this.tailOutput) return;
    const rows = rowsOf(this.tailOutput, this.o.columns());
    this.o.write(`\r${rows > 1 ? `\x1b[${rows - 1}A` : ''}\x1b[J`);
  }

  private writeBlocks(blocks: readonly string[]): void {
    for (const block of blocks) {
      if (this.blocks > 0 && !this.separated) this.o.write('\n');
      this.o.write(`${block}\n`);
      this.blocks++;
      this.separated = false;
    }
  }

  private newTail(): void {
    this.tailSource = '';
    this.tailOutput = '';
    this.tailShown = false;
    this.tailDirty = false;
    this.tailWidth = this.o.columns();
    this.raw = this.rawWriter();
  }

  private rawWriter(): WordWrap {
    return new WordWrap((text) => {
      this.tailOutput += text;
      this.o.write(text);
    }, this.o.columns);
  }
}
