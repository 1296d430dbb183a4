import type { Key } from 'node:readline';
import { stripVTControlCharacters } from 'node:util';
import type { Style } from '@birdie/terminal/style';
import { rowsOf } from '@birdie/terminal/text-width';
import { isCancel, MultiLinePrompt } from '@clack/core';
import type { Input, Output } from '../io.js';
import { fitRows, menuRows } from './command-menu.js';
import { type Completions, commandMenu, complete, completeWith } from './completion.js';
import { packParts, terminalColumns, terminalRows } from './screen-fit.js';

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
  /** Earlier inputs, oldest first (Up/Down, Ctrl+R). */
  entries: string[] = [];
  completions: Completions | undefined;
  /** What the last Tab could not decide between, shown under the prompt until the next key. */
  options: string[] = [];

  /** Completions that arrived while the prompt is up: a `/` typed before them gets its menu at once. */
  showCompletions(completions: Completions): void {
    this.completions = completions;
    // clack's render is private at the type level only; it is the same redraw a key press makes.
    if (this.state === 'active' || this.state === 'initial') (this as unknown as { render(): void }).render();
  }

  /** Tab: completes the word before the cursor (at the end of a one-line input); the editor inserted a tab. */
  tabKey(char: string | undefined): boolean {
    if (char !== '\t') return false;
    const at = this._cursor;
    const text =
      this.userInput[at - 1] === '\t'
        ? this.userInput.slice(0, at - 1) + this.userInput.slice(at)
        : this.userInput;
    const cursor = this.userInput[at - 1] === '\t' ? at - 1 : at;
    this.options = [];
    if (!this.completions || cursor !== text.length || text.includes('\n')) {
      this._setUserInput(text);
      this._cursor = cursor;
      return true;
    }
    const more = this.completions.more?.(text);
    if (more) {
      // A server answers: the line stays as it is until then, and is completed only if nobody typed meanwhile.
      this._setUserInput(text);
      this._cursor = cursor;
      more.then(
        (pool) => {
          if (this.userInput !== text || (this.state !== 'active' && this.state !== 'initial')) return;
          this.#apply(completeWith(text, pool));
          (this as unknown as { render(): void }).render();
        },
        () => undefined,
      );
      return true;
    }
    this.#apply(complete(text, this.completions));
    return true;
  }

  #apply(done: { line: string; options: string[] }): void {
    this._setUserInput(done.line);
    this._cursor = done.line.length;
    this.options = done.options;
  }

  /** Ctrl+R's reverse search while it runs: what is typed, where the match is, and the draft to go back to. */
  search: { query: string; at: number; draft: string; failing: boolean } | undefined;

  /**
   * Ctrl+R as in readline: typing narrows the search to the newest earlier input containing the text, Ctrl+R again
   * goes further back, Backspace widens it, Enter sends the match, Esc or Ctrl+G goes back to the draft, and any
   * other key keeps the match for editing. The editor already applied the key to the line; the search undoes that.
   */
  searchKey(char: string | undefined, key: Key | undefined): boolean {
    const ctrlR = key?.ctrl === true && key.name === 'r';
    if (!this.search) {
      if (!ctrlR) return false;
      const draft = this.userInput.replace(/\x12/g, '');
      this.search = { query: '', at: this.entries.length, draft, failing: false };
      this._setUserInput(draft);
      this._cursor = draft.length;
      return true;
    }
    const search = this.search;
    if (key?.name === 'return') {
      this.search = undefined;
      return true;
    }
    if (key?.name === 'escape' || (key?.ctrl && key.name === 'g')) {
      this.search = undefined;
      this._setUserInput(search.draft);
      this._cursor = search.draft.length;
      return true;
    }
    const shownMatch = search.at < this.entries.length ? this.entries[search.at]! : search.draft;
    let from = search.at;
    if (ctrlR) from = search.at - 1;
    else if (key?.name === 'backspace') search.query = search.query.slice(0, -1);
    else if (char && char >= ' ' && !key?.ctrl && !key?.meta) search.query += char;
    else {
      // Any other key ends the search on the match, then acts on it as usual.
      this.search = undefined;
      return false;
    }
    let found = -1;
    for (let i = Math.min(from, this.entries.length - 1); i >= 0; i--) {
      if (this.entries[i]!.includes(search.query)) {
        found = i;
        break;
      }
    }
    search.failing = found === -1;
    if (found !== -1) search.at = found;
    const text = found !== -1 ? this.entries[found]! : shownMatch;
    this._setUserInput(text);
    this._cursor = Math.max(0, text.indexOf(search.query));
    return true;
  }

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

  /**
   * Readline's editing keys, which the multi-line editor lacks: Ctrl+U, Ctrl+K, Ctrl+W and Alt+Backspace delete to
   * the line's start, its end, and the word before; Ctrl+A/Home and Ctrl+E/End go to the line's start and end;
   * Alt+Left/Right (and Alt+B/F) move by words. Called after the editor saw the key: a control character it
   * inserted is taken out again, and a key it already applied once (Alt+Backspace, Alt+arrows) is finished here.
   */
  readlineKey(char: string | undefined, key: Key | undefined): boolean {
    if (!key) return false;
    const ctrl = key.ctrl === true && !key.meta;
    const action =
      ctrl && key.name === 'u'
        ? 'kill-start'
        : ctrl && key.name === 'k'
          ? 'kill-end'
          : (ctrl && key.name === 'w') || (key.meta && key.name === 'backspace')
            ? 'kill-word'
            : (ctrl && key.name === 'a') || key.name === 'home'
              ? 'start'
              : (ctrl && key.name === 'e') || key.name === 'end'
                ? 'end'
                : key.meta && (key.name === 'left' || key.name === 'b')
                  ? 'word-left'
                  : key.meta && (key.name === 'right' || key.name === 'f')
                    ? 'word-right'
                    : undefined;
    if (!action) return false;
    let text = this.userInput;
    let at = this._cursor;
    if (char && char.length === 1 && char < ' ' && text[at - 1] === char) {
      text = text.slice(0, at - 1) + text.slice(at);
      at -= 1;
    } else if (
      key.meta &&
      (key.name === 'b' || key.name === 'f') &&
      text.slice(at - 2, at) === `\x1b${key.name}`
    ) {
      text = text.slice(0, at - 2) + text.slice(at);
      at -= 2;
    } else if (key.meta && (key.name === 'b' || key.name === 'f') && text[at - 1] === key.name) {
      text = text.slice(0, at - 1) + text.slice(at);
      at -= 1;
    }
    const lineStart = text.lastIndexOf('\n', at - 1) + 1;
    const newline = text.indexOf('\n', at);
    const lineEnd = newline === -1 ? text.length : newline;
    const wordStart = () => at - (/[^\s]*\s*$/.exec(text.slice(lineStart, at))?.[0].length ?? 0);
    switch (action) {
      case 'kill-start':
        text = text.slice(0, lineStart) + text.slice(at);
        at = lineStart;
        break;
      case 'kill-end':
        text = text.slice(0, at) + text.slice(lineEnd);
        break;
      case 'kill-word': {
        const from = wordStart();
        text = text.slice(0, from) + text.slice(at);
        at = from;
        break;
      }
      case 'start':
        at = lineStart;
        break;
      case 'end':
        at = lineEnd;
        break;
      case 'word-left':
        at = wordStart();
        break;
      case 'word-right':
        at += /^\s*[^\s]*/.exec(text.slice(at, lineEnd))?.[0].length ?? 0;
        break;
    }
    this._setUserInput(text);
    this._cursor = at;
    return true;
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
  /** Tab completion and the `/` menu, once gathered (the prompt does not wait for them); until then Tab does nothing. */
  completions?: Promise<Completions>;
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
      if (self.search) {
        const label = self.search.failing ? 'failing reverse-i-search' : 'reverse-i-search';
        return `${style('dim', `(${label})\`${self.search.query}':`)} ${shown(self.userInput).replace(/\n/g, '\n  ')}`;
      }
      const body =
        self.userInput === '' ? `\u2588${style('dim', options.hint ?? '')}` : self.userInputWithCursor;
      const line = `${style('cyan', '›')} ${body.replace(/\n/g, '\n  ')}`;
      // Under the input: what Tab could not decide between, else the commands that start with what is typed, in
      // the rows the screen has left under the input (a frame taller than the screen cannot be redrawn).
      const columns = terminalColumns(options.output);
      const free = terminalRows(options.output) - rowsOf(stripVTControlCharacters(line), columns) - 1;
      if (self.options.length)
        return [
          line,
          ...fitRows(packParts(self.options, '  ', columns - 2), free).map((row) => `  ${style('dim', row)}`),
        ].join('\n');
      const menu = self.completions ? commandMenu(self.userInput, self.completions) : [];
      if (menu.length === 0) return line;
      return [line, ...menuRows(menu, columns, free, style)].join('\n');
    },
  });
  prompt.entries = options.history ?? [];
  options.completions?.then(
    (completions) => prompt.showCompletions(completions),
    () => undefined,
  );
  prompt.on('key', (char: string | undefined, key: Key) => {
    if (prompt.tabKey(char)) return;
    prompt.options = [];
    if (prompt.searchKey(char, key)) {
      prompt.lastKey = undefined;
      return;
    }
    if (key?.name === 'paste-start') prompt.pasting = true;
    else if (key?.name === 'paste-end') prompt.pasting = false;
    if (char === '\x03' || (key?.ctrl && key.name === 'c')) prompt.lastKey = 'ctrl-c';
    else if (char === '\x04' || (key?.ctrl && key.name === 'd')) {
      prompt.lastKey = 'ctrl-d';
      prompt.ctrlD();
    } else if (prompt.readlineKey(char, key)) prompt.lastKey = undefined;
    else if (key?.name === 'escape') prompt.lastKey = 'escape';
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
