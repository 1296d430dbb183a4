/**
 * A small terminal emulator for checking what a screen shows after erasing and redrawing: a screen of `rows` rows
 * over an unbounded scrollback, auto-wrap at `columns`, `\n` as CR LF (a pty's onlcr), `\r`, backspace, and the
 * CSI sequences the REPL and its prompt library write (cursor up/down/forward/back/column/position, erase in line
 * and in display). Colors and modes are ignored; the cursor never moves into the scrollback.
 */
export class Screen {
  private lines: string[][] = [[]];
  private row = 0;
  private column = 0;
  private saved: [number, number] = [0, 0];

  constructor(
    public columns: number,
    readonly rows: number,
  ) {}

  write(data: string): void {
    for (let i = 0; i < data.length; i++) {
      const char = data[i]!;
      if (char === '\x1b') {
        const csi = /^\x1b\[([?>=]?)([0-9;]*)([A-Za-z@`])/.exec(data.slice(i));
        if (csi) {
          if (!csi[1])
            this.csi(
              csi[3]!,
              csi[2]!.split(';').map((n) => (n === '' ? undefined : Number(n))),
            );
          i += csi[0].length - 1;
          continue;
        }
        const next = data[i + 1];
        if (next === '7') this.saved = [this.row, this.column];
        else if (next === '8') [this.row, this.column] = this.saved;
        // OSC (…BEL or …ESC \): skipped whole.
        if (next === ']') {
          const end = data.slice(i).search(/\x07|\x1b\\/);
          i += end < 0 ? data.length : end + (data[i + end] === '\x07' ? 0 : 1);
          continue;
        }
        i += 1;
      } else if (char === '\r') this.column = 0;
      else if (char === '\n') this.down(true);
      else if (char === '\b') this.column = Math.max(0, this.column - 1);
      else if (char >= ' ') {
        if (this.column >= this.columns) this.down(true);
        this.line()[this.column++] = char;
      }
    }
  }

  /** The scrollback and the screen, lines without trailing spaces, without trailing empty lines. */
  get text(): string {
    return this.lines
      .map((line) =>
        Array.from(line, (c) => c ?? ' ')
          .join('')
          .trimEnd(),
      )
      .join('\n')
      .replace(/\n+$/, '');
  }

  private csi(command: string, params: (number | undefined)[]): void {
    const n = params[0] ?? 1;
    switch (command) {
      case 'A':
        this.row = Math.max(this.top(), this.row - n);
        break;
      case 'B':
        for (let k = 0; k < n; k++) this.down(false);
        break;
      case 'C':
        this.column = Math.min(this.columns - 1, this.column + n);
        break;
      case 'D':
        this.column = Math.max(0, Math.min(this.column, this.columns) - n);
        break;
      case 'E':
      case 'F':
        if (command === 'E') for (let k = 0; k < n; k++) this.down(false);
        else this.row = Math.max(this.top(), this.row - n);
        this.column = 0;
        break;
      case 'G':
        this.column = Math.max(0, n - 1);
        break;
      case 'H':
        this.row = this.top() + Math.max(0, (params[0] ?? 1) - 1);
        this.column = Math.max(0, (params[1] ?? 1) - 1);
        while (this.lines.length <= this.row) this.lines.push([]);
        break;
      case 'K': {
        const line = this.line();
        const mode = params[0] ?? 0;
        if (mode === 0) line.length = Math.min(line.length, this.column);
        else if (mode === 1) for (let c = 0; c <= this.column && c < line.length; c++) line[c] = ' ';
        else line.length = 0;
        break;
      }
      case 'J': {
        const mode = params[0] ?? 0;
        if (mode === 0) {
          this.line().length = Math.min(this.line().length, this.column);
          this.lines.length = this.row + 1;
        } else if (mode >= 2) {
          for (let r = this.top(); r < this.lines.length; r++) this.lines[r] = [];
        }
        break;
      }
      default:
        break;
    }
  }

  private line(): string[] {
    return this.lines[this.row]!;
  }

  private top(): number {
    return Math.max(0, this.lines.length - this.rows);
  }

  private down(carriageReturn: boolean): void {
    this.row++;
    if (carriageReturn) this.column = 0;
    while (this.lines.length <= this.row) this.lines.push([]);
  }
}
