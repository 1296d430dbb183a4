import type { Input } from '../io.js';

/** How long to wait for what the terminal already holds: it arrives on the first read, well within this. */
const DRAIN_MS = 10;

/**
 * Takes the terminal (raw mode) and returns what was typed before birdie had it. Until then the terminal was in
 * cooked mode, which hands over whole lines and turns each Enter into a line feed — the key the prompt reads as
 * Ctrl+J (a new line in the message). So the complete lines typed ahead were *sent*: the first one is returned as a
 * message to send, and the rest is given back to the prompt with its line feeds as Enter again.
 */
export async function takeTypeAhead(stdin: Input): Promise<string | undefined> {
  if (!stdin.isTTY || !stdin.setRawMode) return undefined;
  stdin.setRawMode(true);
  const chunks: Buffer[] = [];
  const onData = (chunk: Buffer | string) => chunks.push(Buffer.from(chunk));
  stdin.on('data', onData);
  await new Promise((resolve) => setTimeout(resolve, DRAIN_MS));
  stdin.off('data', onData);
  stdin.pause();
  const text = Buffer.concat(chunks).toString('utf8');
  const end = text.indexOf('\n');
  if (end === -1) {
    if (text) stdin.unshift(Buffer.from(text));
    return undefined;
  }
  const rest = text.slice(end + 1).replace(/\n/g, '\r');
  if (rest) stdin.unshift(Buffer.from(rest));
  const line = text.slice(0, end);
  return line.trim() ? line : undefined;
}
