import type { ChatOutput, ChatPlace } from './chat.js';
import { splitMarkdown } from './split.js';

/**
 * An answer edited into one message as it streams (more messages once it outgrows one): at most one send or edit
 * per `editEveryMs`, whatever the rate of tokens, and a last edit with the whole text at the end.
 */
export class StreamedReply {
  private text = '';
  private readonly ids: string[] = [];
  private readonly shown: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private lastFlush = 0;
  private failure: unknown;

  constructor(
    private readonly output: ChatOutput,
    private readonly place: ChatPlace,
  ) {}

  /** The message ids sent so far, in order. */
  get messageIds(): readonly string[] {
    return this.ids;
  }

  get current(): string {
    return this.text;
  }

  append(delta: string): void {
    if (delta === '') return;
    this.text += delta;
    this.schedule();
  }

  /** Starts a new paragraph (after a tool call) unless the text already ends with one. */
  paragraph(line?: string): void {
    if (this.text !== '' && !this.text.endsWith('\n\n'))
      this.text += this.text.endsWith('\n') ? '\n' : '\n\n';
    if (line) this.append(`${line}\n\n`);
  }

  /** Sends what is left, waits for every send and edit; throws the first failure of one. */
  async finish(extra?: string): Promise<void> {
    if (extra) {
      this.paragraph();
      this.text += extra;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    await this.flush();
    if (this.failure) throw this.failure;
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastFlush + this.output.editEveryMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushing = this.flushing
        .then(() => this.flush())
        .catch((error) => {
          this.failure ??= error;
        });
    }, wait);
  }

  private async flush(): Promise<void> {
    this.lastFlush = Date.now();
    const pieces = splitMarkdown(this.text, this.output.maxChars);
    for (const [i, piece] of pieces.entries()) {
      if (i < this.ids.length) {
        if (this.shown[i] === piece) continue;
        await this.output.edit(this.place, this.ids[i] as string, piece);
      } else {
        this.ids.push(await this.output.send(this.place, piece));
      }
      this.shown[i] = piece;
    }
  }
}
