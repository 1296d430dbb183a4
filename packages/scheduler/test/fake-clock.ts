import type { Clock } from '../src/index.js';

/** A clock that moves only when told; timers fire in due order as it moves. */
export class FakeClock implements Clock {
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private seq = 0;
  constructor(public time: number) {}
  now(): number {
    return this.time;
  }
  setTimer(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.push({ at: this.time + Math.max(0, ms), fn, id });
    return id;
  }
  clearTimer(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }
  /** Moves to `target`, firing each timer due on the way at its own time, and lets the work it starts settle. */
  async advanceTo(target: number, settle: () => Promise<void>): Promise<void> {
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const timer = this.timers[0];
      if (!timer || timer.at > target) break;
      this.timers.shift();
      this.time = Math.max(this.time, timer.at);
      timer.fn();
      await settle();
    }
    this.time = target;
    await settle();
  }
}
