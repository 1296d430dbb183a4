import type { Io } from '../io.js';
import type { AnswerSink } from '@birdie/terminal/answer-sink';
import { colorsOn, type Style } from '@birdie/terminal/style';

type Renderer = typeof import('@birdie/terminal/markdown');

let loading: Promise<Renderer> | undefined;

/**
 * The Markdown renderer (mdast parser, GFM, highlighter), imported on the first turn that needs it and never at
 * start, so the first prompt is drawn without it.
 */
export function loadMarkdown(): Promise<Renderer> {
  loading ??= import('@birdie/terminal/markdown');
  return loading;
}

/** Answers are rendered as Markdown in a terminal with colors; with NO_COLOR, TERM=dumb or in a pipe, raw. */
export function rendersMarkdown(io: Io): boolean {
  return colorsOn(io.stdout, io.env);
}

const size = (io: Io) => io.stdout as { columns?: number; rows?: number };

/** The turn's answer rendered in the terminal, once the renderer is loaded (until then, written as it comes). */
export class MarkdownAnswer implements AnswerSink {
  private sink: AnswerSink | undefined;

  constructor(
    private readonly io: Io,
    private readonly style: Style,
  ) {}

  use(renderer: Renderer): void {
    this.sink = new renderer.TerminalAnswer({
      write: (text) => this.io.stdout.write(text),
      style: this.style,
      columns: () => size(this.io).columns || 80,
      rows: () => size(this.io).rows || 24,
    });
  }

  push(text: string): void {
    if (this.sink) this.sink.push(text);
    else this.io.stdout.write(text);
  }

  end(): void {
    this.sink?.end();
  }
}

/**
 * Holds a turn's events, in order, until `ready` settles (the renderer is loaded), then lets them through as they
 * come. Without `ready` it holds nothing. `open` settles once everything held has been delivered: whoever prints
 * outside the events (approvals, the end of the turn) waits for it, so nothing is printed out of order.
 */
export class EventGate<T> {
  private held: T[] | undefined;
  readonly open: Promise<void>;

  constructor(
    ready: Promise<unknown> | undefined,
    private readonly deliver: (event: T) => void,
  ) {
    if (!ready) {
      this.open = Promise.resolve();
      return;
    }
    this.held = [];
    this.open = ready
      .catch(() => undefined)
      .then(() => {
        const held = this.held ?? [];
        this.held = undefined;
        for (const event of held) deliver(event);
      });
  }

  /** Events are being held (the renderer is still loading). */
  get holding(): boolean {
    return this.held !== undefined;
  }

  push(event: T): void {
    if (this.held) this.held.push(event);
    else this.deliver(event);
  }
}
