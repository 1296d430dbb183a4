import type { AgentEvent } from '@birdie/graph';
import { fromSubagent } from '@birdie/graph/event-json';
import type { TurnEvent } from '@birdie/runtime/turn';
import type { Output } from './output.js';
import { fitWidth, LastLines } from './live-lines.js';
import type { Style } from './style.js';
import { formatArgs } from './tool-output.js';
import { FRAMES } from './spinner.js';

/** Lines of output shown per running call (fewer when several run and the window is short). */
const LINES = 5;
const TICK_MS = 100;

interface RunningCall {
  name: string;
  args: Record<string, unknown>;
  started: number;
  output: LastLines;
}

export interface LiveToolsOptions {
  out: Output & { rows?: number };
  style: Style;
  now?: () => number;
}

/**
 * The live area of the REPL: below the printed history, one block per running call (a spinner, its name and the
 * time it has run, then the last lines of its output), redrawn in place. Anything else the turn prints first erases
 * the area (`clear`), then the area is drawn again below it (`draw`), so the history keeps only what the printer
 * wrote: a call's result replaces its live block, nothing is printed twice. Only for a colour terminal: the caller
 * does not create one for a pipe or under NO_COLOR, where the final result line says how long the call took.
 */
export class LiveTools {
  readonly #calls = new Map<string, RunningCall>();
  /** Lines the area takes on the screen now; the cursor is at the start of the line below them. */
  #drawn = 0;
  #timer: NodeJS.Timeout | undefined;
  #frame = 0;
  #paused = false;
  /** Answer text is streaming (a subagent's, while its `task` call runs): the line is not the area's to take. */
  #answering = false;
  readonly #now: () => number;

  constructor(private readonly o: LiveToolsOptions) {
    this.#now = o.now ?? Date.now;
  }

  /** Calls are running: the thinking spinner stays off, the area shows progress instead. */
  get active(): boolean {
    return this.#calls.size > 0;
  }

  /** Takes an event before the printer sees it: the area is erased so the printer writes where it stood. */
  before(event: AgentEvent | TurnEvent): void {
    if (event.type === 'tool-output') {
      this.#calls.get(event.id)?.output.push(event.text);
      return;
    }
    // A subagent's text is not printed (it is its task call's result): the task call's progress stays on screen.
    if (event.type === 'token' && fromSubagent(event)) return;
    this.clear();
    if (event.type === 'token') this.#answering = true;
    else if (event.type === 'tool-start' || event.type === 'tool-end') this.#answering = false;
    if (event.type === 'tool-start') {
      this.#calls.set(event.id, {
        name: event.name,
        args: event.args,
        started: this.#now(),
        output: new LastLines(LINES),
      });
    } else if (event.type === 'tool-end') {
      this.#calls.delete(event.id);
    } else if (event.type === 'done') {
      this.#calls.clear();
    }
  }

  /** After the printer: draws the area again while calls run, and keeps its clock ticking. */
  after(): void {
    if (!this.active) {
      this.#stopTimer();
      return;
    }
    if (this.#paused) return;
    this.draw();
    this.#timer ??= setInterval(() => this.draw(), TICK_MS);
    this.#timer.unref?.();
  }

  /** Erases the area, leaving the cursor where it began. */
  clear(): void {
    if (this.#drawn === 0) return;
    this.o.out.write(`\x1b[${this.#drawn}A\r\x1b[J`);
    this.#drawn = 0;
  }

  /** Something else needs the screen (an approval question, the cancel notice): erase and stop redrawing. */
  pause(): void {
    this.#paused = true;
    this.#stopTimer();
    this.clear();
  }

  resume(): void {
    this.#paused = false;
    this.after();
  }

  /** The turn is over: erase the area and forget every call. */
  stop(): void {
    this.#stopTimer();
    this.clear();
    this.#calls.clear();
  }

  draw(): void {
    if (this.#paused || this.#answering || !this.active) return;
    const { style } = this.o;
    const width = Math.max(10, (this.o.out.columns || 80) - 1);
    const rows = this.o.out.rows || 24;
    const several = this.#calls.size > 1;
    // Several calls share the window: each gets fewer lines, and its header names its arguments.
    const perCall = Math.max(0, Math.min(LINES, Math.floor((rows - 2) / this.#calls.size) - 1));
    const frame = FRAMES[this.#frame++ % FRAMES.length]!;
    const lines: string[] = [];
    // The area must fit the window (the cursor cannot move up past its top): more calls than rows are counted.
    const calls = [...this.#calls.values()];
    const shown = calls.length > rows - 2 ? calls.slice(0, Math.max(1, rows - 3)) : calls;
    for (const call of shown) {
      const elapsed = `${((this.#now() - call.started) / 1000).toFixed(1)}s`;
      const head = fitWidth(
        `${call.name}${several ? ` ${formatArgs(call.args)}` : ''}`,
        width - elapsed.length - 5,
      );
      lines.push(`${style('magenta', frame)} ${style('dim', `${head} · ${elapsed}`)}`);
      for (const line of call.output.last(perCall))
        lines.push(`${style('dim', '┆')} ${fitWidth(line, width - 2)}`);
    }
    if (shown.length < calls.length)
      lines.push(style('dim', fitWidth(`… and ${calls.length - shown.length} more running`, width)));
    this.clear();
    this.o.out.write(`${lines.map((line) => `${line}\x1b[K`).join('\n')}\n`);
    this.#drawn = lines.length;
  }

  #stopTimer(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
