import { stripVTControlCharacters } from 'node:util';
import { escapeInvisible } from '@birdie/skill-parser/visible-text';
import type { Output } from './output.js';

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

/**
 * Text from a file or the model shown as it is, never as terminal commands: control characters (escape sequences,
 * carriage returns, line feeds, tabs) become their visible Unicode pictures (`␛`), so a file cannot redraw, retitle,
 * recolour or clear anything, write the clipboard, or erase part of a line; invisible format characters (a bidi
 * override, a zero-width space) are written out as `\u202e`, the rule the web app's approval card follows too. The one
 * rendering of text a person decides on or must recognise: approval questions, the workspace-trust question, and
 * whatever quotes a SKILL.md or agent file (diagnostics, lists), so what is shown reads as what runs (DESIGN §5).
 */
export function visible(text: string): string {
  return escapeInvisible(text).replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    return code === 0x7f ? '\u2421' : '\ufffd';
  });
}
