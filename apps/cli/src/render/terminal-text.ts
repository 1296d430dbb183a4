import { stripVTControlCharacters } from 'node:util';
import type { Output } from '../io.js';

/** Control characters a terminal acts on, but the line feed and the tab. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const ANY_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/**
 * Text from outside birdie (a tool's output, a model's answer, a stored message, a run's error) as it may reach the
 * terminal: its escape sequences (a window title, a screen clear, colours, cursor moves) removed with what they would
 * do, and every other control character but the line feed and the tab dropped. A carriage return is dropped too, not
 * obeyed: text it would have written over stays in view. birdie's own styling is added after this.
 */
export function terminalText(text: string): string {
  if (!ANY_CONTROL.test(text)) return text;
  return stripVTControlCharacters(text).replace(CONTROL, '');
}

/** `text` for `out`: `terminalText` when it is a terminal, exact bytes for a pipe or a file (`birdie tool > out`). */
export function textFor(out: Output, text: string): string {
  return out.isTTY ? terminalText(text) : text;
}
