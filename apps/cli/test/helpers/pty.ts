import { createRequire } from 'node:module';
import { stripVTControlCharacters } from 'node:util';
import { Terminal as Emulator } from '@xterm/headless';
import type { IPty } from 'node-pty';
import { BIN } from './env.js';

const require = createRequire(import.meta.url);
const pty = require('node-pty') as typeof import('node-pty');

/** The compiled CLI in a real pseudo-terminal, driven like a user: wait for text, type, press keys. */
export class Terminal {
  private raw = '';
  private cursor = 0;
  readonly exited: Promise<number>;
  private readonly proc: IPty;
  /** The same bytes through a terminal emulator: what a user sees once cursor moves and erasures are applied. */
  private readonly emulator: Emulator;

  constructor(
    args: string[],
    options: { env: NodeJS.ProcessEnv; cwd: string; cols?: number; rows?: number },
  ) {
    const { cols = 160, rows = 50 } = options;
    this.emulator = new Emulator({ cols, rows, scrollback: 10_000, allowProposedApi: true });
    this.proc = pty.spawn(process.execPath, [BIN, ...args], {
      name: 'xterm-256color',
      cols,
      rows,
      cwd: options.cwd,
      env: options.env as Record<string, string>,
    });
    this.proc.onData((data) => {
      this.raw += data;
      this.emulator.write(data);
    });
    this.exited = new Promise((resolve) => this.proc.onExit(({ exitCode }) => resolve(exitCode)));
  }

  get pid(): number {
    return this.proc.pid;
  }

  /** Everything written so far, escape sequences included. */
  get output(): string {
    return this.raw;
  }

  /** Everything shown so far, without escape sequences. */
  get text(): string {
    return stripVTControlCharacters(this.raw).replace(/\r/g, '');
  }

  /**
   * The screen and its scrollback as the terminal shows them now (redraws applied, trailing blanks trimmed): for
   * asserting that nothing is left over or shown twice, which the raw `text` cannot tell.
   */
  async screen(): Promise<string> {
    await new Promise<void>((resolve) => this.emulator.write('', resolve));
    const buffer = this.emulator.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  /**
   * The rows the terminal had to wrap (a line longer than the width goes on in the next row), each with the row it
   * continues: what a user sees as a line broken at the edge, wherever it fell.
   */
  async wrappedRows(): Promise<string[]> {
    await new Promise<void>((resolve) => this.emulator.write('', resolve));
    const buffer = this.emulator.buffer.active;
    const rows: string[] = [];
    for (let y = 1; y < buffer.length; y++) {
      if (buffer.getLine(y)?.isWrapped)
        rows.push(
          `${buffer.getLine(y - 1)?.translateToString(true)}⏎${buffer.getLine(y)?.translateToString(true)}`,
        );
    }
    return rows;
  }

  /** The rows the terminal shows now (its viewport, not the scrollback above it), trailing blanks trimmed. */
  async viewport(): Promise<string[]> {
    await new Promise<void>((resolve) => this.emulator.write('', resolve));
    const buffer = this.emulator.buffer.active;
    const rows: string[] = [];
    for (let y = buffer.viewportY; y < buffer.viewportY + this.emulator.rows; y++)
      rows.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return rows;
  }

  /** Waits until `pattern` appears after the previous match, then moves past it. */
  async expect(pattern: string | RegExp, timeoutMs = 15_000): Promise<string> {
    const started = Date.now();
    for (;;) {
      const text = this.text;
      const rest = text.slice(this.cursor);
      const match =
        typeof pattern === 'string'
          ? rest.includes(pattern)
            ? { index: rest.indexOf(pattern), 0: pattern }
            : null
          : pattern.exec(rest);
      if (match) {
        this.cursor += match.index + match[0].length;
        return rest.slice(0, match.index + match[0].length);
      }
      if (Date.now() - started > timeoutMs) {
        throw new Error(
          `timed out waiting for ${String(pattern)}; screen after the last match:\n${rest.slice(-3000)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Waits for the input prompt to be ready for typing. */
  async prompt(): Promise<void> {
    await this.expect(/› (█|$)/m);
  }

  /**
   * Waits until the approval question takes keys: keys typed in its first moments are ignored, and its hint says
   * when that time is over.
   */
  async approvalReady(): Promise<void> {
    await this.expect('y/e/n answer at once');
  }

  /**
   * Answers the approval question with "for this session" (`a`, then Enter); for a shell tool, `tool` is the name
   * typed to confirm that every command of it may run.
   */
  async approveForSession(tool?: string): Promise<void> {
    await this.approvalReady();
    this.write('a');
    await this.expect(/● \[a\]/);
    this.write('\r');
    if (tool === undefined) return;
    await this.expect(`Type ${tool} to confirm`);
    this.write(`${tool}\r`);
  }

  write(data: string): void {
    this.proc.write(data);
  }

  /** Resizes the terminal, the emulator with it (the program gets SIGWINCH and a `resize` event on stdout). */
  resize(cols: number, rows: number): void {
    this.emulator.resize(cols, rows);
    this.proc.resize(cols, rows);
  }

  /** How much has been shown so far: `text.slice(mark)` is what came after this point. */
  get mark(): number {
    return this.text.length;
  }

  /** Types a line and presses Enter once the prompt is there. */
  async submit(line: string): Promise<void> {
    await this.prompt();
    this.proc.write(line);
    await new Promise((r) => setTimeout(r, 30));
    this.proc.write('\r');
  }

  kill(): void {
    try {
      this.proc.kill();
    } catch {
      // already gone
    }
  }
}
