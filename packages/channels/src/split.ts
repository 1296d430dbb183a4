/**
 * Splits Markdown into pieces of at most `max` characters, each fit to convert on its own: at a blank line where one
 * is near the end, else at a line end, else at a space; a code fence cut in two is closed at the end of its first
 * piece and opened again (with its language) at the start of the next.
 */
export function splitMarkdown(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  let reopen = '';
  while (rest.length > 0) {
    const room = max - reopen.length - 4; // room for a closing fence
    if (reopen.length + rest.length <= max) {
      pieces.push(reopen + rest);
      break;
    }
    const window = rest.slice(0, room);
    const cut = cutAt(window);
    let piece = reopen + rest.slice(0, cut).trimEnd();
    rest = rest.slice(cut).replace(/^\n+/, '');
    const fence = openFence(piece);
    reopen = '';
    if (fence !== undefined) {
      piece += '\n```';
      reopen = `${fence}\n`;
    }
    pieces.push(piece);
  }
  return pieces.filter((p) => p.trim() !== '');
}

function cutAt(window: string): number {
  const half = window.length / 2;
  for (const separator of ['\n\n', '\n', ' ']) {
    const at = window.lastIndexOf(separator);
    if (at > half) return at + separator.length;
  }
  return window.length;
}

/** The opening line of a fence left open at the end of `text` (```` ```ts ````), if any. */
function openFence(text: string): string | undefined {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const fence = /^\s*(```+)(.*)$/.exec(line);
    if (!fence) continue;
    open = open === undefined ? `\`\`\`${(fence[2] ?? '').trim()}` : undefined;
  }
  return open;
}
