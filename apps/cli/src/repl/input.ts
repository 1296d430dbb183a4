import type { Key } from 'node:readline';
import { isCancel, MultiLinePrompt } from '@clack/core';
import type { Input, Output } from '../io.js';
import type { Style } from '../render/style.js';

export type InputResult =
  | { kind: 'text'; text: string }
  /** Ctrl+C; `empty` tells whether the line was empty when it was pressed. */
  | { kind: 'interrupt'; empty: boolean }
  /** Ctrl+D on an empty line. */
  | { kind: 'eof' };

/**
 * The REPL's line editor on clack's multi-line prompt: Enter submits, Ctrl+J (a bare line feed, which terminals send
 * for it) inserts a newline, Ctrl+C and Ctrl+D end the prompt and say which key did it.
 */
class ReplPrompt extends MultiLinePrompt {
  lastKey: 'ctrl-c' | 'ctrl-d' | 'escape' | undefined;
  /** Inside a bracketed paste: a pasted line break is a newline in the message, not Enter. */
  pasting = false;

  /**
   * Ctrl+D as readline has it: on an empty line it ends the prompt (EOF); otherwise it deletes the character under
   * the cursor and the draft stays. Called from the key listener, after the editor inserted the key's \x04.
   */
  ctrlD(): void {
    const at = this._cursor - 1;
    const text =
      this.userInput[at] === '\x04'
        ? this.userInput.slice(0, at) + this.userInput.slice(at + 1)
        : this.userInput;
    const cursor = this.userInput[at] === '\x04' ? at : this._cursor;
    if (text === '') {
      this._setUserInput('');
      this.state = 'cancel';
      return;
    }
    this._setUserInput(cursor < text.length ? text.slice(0, cursor) + text.slice(cursor + 1) : text);
    this._cursor = cursor;
  }

  /** Replaces the line with an earlier input (Up/Down on a one-line input). */
  recall(text: string): void {
    this._setUserInput(text);
    this._cursor = text.length;
  }

  protected override _shouldSubmit(): boolean {
    if (!this.pasting) return true;
    const at = this.cursor;
    this._setUserInput(`${this.userInput.slice(0, at)}\n${this.userInput.slice(at)}`);
    this._cursor = at + 1;
    return false;
  }
}

/** Control characters a cancelling key left in the line (Ctrl+C, Ctrl+D) are not worth echoing back. */
const shown = (text: string) => text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');

const PASTE_ON = '\x1b[?2004h';
const PASTE_OFF = '\x1b[?2004l';

export async function readInput(options: {
  input: Input;
  output: Output;
  style: Style;
  hint?: string;
  /** Ends the prompt from outside (the runtime failed to load while the user was typing). */
  signal?: AbortSignal;
  /** Earlier inputs, oldest first, for Up/Down; the submitted text is appended. */
  history?: string[];
}): Promise<InputResult> {
  const { style } = options;
  const prompt: ReplPrompt = new ReplPrompt({
    input: options.input,
    output: options.output,
    ...(options.signal ? { signal: options.signal } : {}),
    render() {
      const self = this as unknown as ReplPrompt;
      if (self.state === 'submit')
        return `${style('dim', '›')} ${style('dim', shown(self.userInput).replace(/\n/g, '\n  '))}`;
      if (self.state === 'cancel')
        return `${style('dim', '›')} ${shown(self.userInput).replace(/\n/g, '\n  ')}`;
      const body =
        self.userInput === '' ? `\u2588${style('dim', options.hint ?? '')}` : self.userInputWithCursor;
      return `${style('cyan', '›')} ${body.replace(/\n/g, '\n  ')}`;
    },
  });
  prompt.on('key', (char: string | undefined, key: Key) => {
    if (key?.name === 'paste-start') prompt.pasting = true;
    else if (key?.name === 'paste-end') prompt.pasting = false;
    if (char === '\x03' || (key?.ctrl && key.name === 'c')) prompt.lastKey = 'ctrl-c';
    else if (char === '\x04' || (key?.ctrl && key.name === 'd')) {
      prompt.lastKey = 'ctrl-d';
      prompt.ctrlD();
    } else if (key?.name === 'escape') prompt.lastKey = 'escape';
    else if (key?.name !== 'paste-start' && key?.name !== 'paste-end') prompt.lastKey = undefined;
  });
  const history = options.history ?? [];
  let back = history.length;
  prompt.on('key', (_char: string | undefined, key: Key) => {
    // Multi-line input keeps Up/Down for moving between its lines.
    if ((key?.name !== 'up' && key?.name !== 'down') || prompt.userInput.includes('\n')) return;
    const next = key.name === 'up' ? Math.max(0, back - 1) : Math.min(history.length, back + 1);
    if (next === back || (next === history.length && back === history.length)) return;
    back = next;
    prompt.recall(history[back] ?? '');
  });
  const before = () => prompt.userInput.replace(/\x04/g, '');
  let textAtKey = '';
  prompt.on('key', () => {
    textAtKey = before();
  });
  options.output.write(PASTE_ON);
  let value: string | symbol | undefined;
  try {
    value = await prompt.prompt();
  } finally {
    options.output.write(PASTE_OFF);
  }
  if (isCancel(value) || value === undefined) {
    const text = textAtKey.replace(/\x03/g, '');
    if (prompt.lastKey === 'ctrl-d') return { kind: 'eof' };
    return { kind: 'interrupt', empty: prompt.lastKey === 'escape' ? false : text.trim() === '' };
  }
  const text = String(value);
  if (text.trim() && history.at(-1) !== text) history.push(text);
  return { kind: 'text', text };
}
