/**
 * What a terminal would show after `raw` was written to it: a small model of the cursor and the cells, enough for
 * the sequences the CLI and its prompts write (cursor moves, erase in line and display, carriage return, newline,
 * automatic wrap). Scrollback is kept, so the whole session can be read as it finally stands on screen: text that was
 * drawn and then erased (a live area) is gone, as it is for the user. Colours and modes are ignored.
 */
export function screenLines(raw: string, cols: number, rows: number): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  let saved = { row: 0, col: 0 };
  const line = (r: number) => {
    while (lines.length <= r) lines.push([]);
    return lines[r]!;
  };
  const top = () => Math.max(0, lines.length - rows);
  let i = 0;
  while (i < raw.length) {
    const ch = raw[i]!;
    if (ch === '\x1b') {
      const next = raw[i + 1];
      if (next === '[') {
        const m = /^\x1b\[([?>=]?)([\d;]*)([ -/]*)([@-~])/.exec(raw.slice(i, i + 32));
        if (!m) {
          i += 2;
          continue;
        }
        i += m[0].length;
        if (m[1]) continue; // private modes (cursor visibility, bracketed paste)
        const params = m[2]!.split(';').map((p) => (p === '' ? undefined : Number(p)));
        const n = params[0] ?? 1;
        switch (m[4]) {
          case 'A':
            row = Math.max(top(), row - n);
            break;
          case 'B':
            row += n;
            line(row);
            break;
          case 'C':
            col = Math.min(cols - 1, col + n);
            break;
          case 'D':
            col = Math.max(0, col - n);
            break;
          case 'G':
            col = Math.max(0, n - 1);
            break;
          case 'H':
          case 'f':
            row = top() + Math.max(0, (params[0] ?? 1) - 1);
            col = Math.max(0, (params[1] ?? 1) - 1);
            line(row);
            break;
          case 'J': {
            const mode = params[0] ?? 0;
            if (mode === 0) {
              line(row).length = Math.min(line(row).length, col);
              lines.length = row + 1;
            } else if (mode === 2 || mode === 3) {
              for (let r = top(); r < lines.length; r++) lines[r] = [];
            }
            break;
          }
          case 'K': {
            const mode = params[0] ?? 0;
            const cells = line(row);
            if (mode === 0) cells.length = Math.min(cells.length, col);
            else if (mode === 2) lines[row] = [];
            else for (let c = 0; c <= col && c < cells.length; c++) cells[c] = ' ';
            break;
          }
          case 's':
            saved = { row, col };
            break;
          case 'u':
            ({ row, col } = saved);
            break;
          default:
            break; // colours and everything else
        }
        continue;
      }
      if (next === ']') {
        // OSC: up to BEL or ESC \
        const end = raw.slice(i).search(/\x07|\x1b\\/);
        i += end < 0 ? raw.length : end + (raw[i + end] === '\x07' ? 1 : 2);
        continue;
      }
      if (next === '7') saved = { row, col };
      else if (next === '8') ({ row, col } = saved);
      i += 2;
      continue;
    }
    i += 1;
    if (ch === '\r') col = 0;
    else if (ch === '\n') {
      row += 1;
      line(row);
    } else if (ch === '\b') col = Math.max(0, col - 1);
    else if (ch === '\t') col = Math.min(cols - 1, (Math.floor(col / 8) + 1) * 8);
    else if (ch >= ' ') {
      if (col >= cols) {
        row += 1;
        col = 0;
      }
      const cells = line(row);
      while (cells.length < col) cells.push(' ');
      cells[col] = ch;
      col += 1;
    }
  }
  return lines.map((cells) => cells.join('').trimEnd());
}
