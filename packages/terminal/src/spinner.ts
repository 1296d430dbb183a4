import type { Output } from './output.js';
import type { Style } from './style.js';

/** The braille frames of the thinking spinner and of the running tools' area. */
export const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A one-line spinner that owns the current line only while it runs; `stop()` leaves the cursor at column 0. */
export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;

  constructor(
    private readonly out: Output,
    private readonly style: Style,
  ) {}

  /** `label` as a function is read again at every frame: a label that changes while it spins (a countdown). */
  start(label: string | (() => string)): void {
    if (this.timer) return;
    const draw = () => {
      const text = typeof label === 'function' ? label() : label;
      this.out.write(
        `\r${this.style('magenta', FRAMES[this.frame++ % FRAMES.length]!)} ${this.style('dim', text)}\x1b[K`,
      );
    };
    draw();
    this.timer = setInterval(draw, 80);
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.out.write('\r\x1b[K');
  }
}
