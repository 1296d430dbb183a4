import type { Key } from 'node:readline';
import { Prompt } from '@clack/core';
import type { Io } from '../io.js';
import type { Style } from '@birdie/terminal/style';
import { visible } from '@birdie/terminal/terminal-text';
import { type ApprovalBox, boxLines } from '@birdie/terminal/approval-box';

/**
 * `prefix`: allow the command pattern shown for the rest of the session; `session`: the whole tool for the session
 * (for a shell tool: every command, confirmed separately by the caller).
 */
export type ApprovalChoice = 'once' | 'prefix' | 'session' | 'edit' | 'reject';

/**
 * What the question ended with: a choice, Esc (this call is rejected), or Ctrl+C (the turn is cancelled). `message`:
 * text typed at the question and sent with Enter (a rejection with that message); `typedAfter`: what was typed right
 * after the `n` or `e` key that answered (the caller puts it in the prompt that follows, so it is not lost).
 */
export interface ApprovalAnswer {
  choice: ApprovalChoice | 'escape' | 'cancel';
  message?: string;
  typedAfter?: string;
}

/** Keys typed this soon after the question appears are ignored: they were meant for something else. */
export const APPROVAL_GUARD_MS = 400;

export interface ApprovalQuestionOptions {
  /** For a shell command: the pattern "allow this command prefix for the session" would add. */
  prefixPattern?: string;
  /** Whether `a` approves every command of a shell tool (the label says so; the caller asks to confirm). */
  shell?: boolean;
  /**
   * False when no session approval could answer a later call like this one (an ask rule asks about it): the
   * question then offers neither the tool nor a command pattern for the session.
   */
  lasting?: boolean;
  /** The clock the guard reads (injected by tests); `Date.now` by default. */
  now?: () => number;
  guardMs?: number;
}

interface Choice {
  value: ApprovalChoice;
  key: string;
  label: string;
  /** A choice that outlasts this call: its key only selects it, Enter confirms. */
  lasting: boolean;
}

/** The hint shown once keys count; tests wait for it before they type. */
export const READY_HINT = 'y/e/n answer at once';

function choicesFor(tool: string, options: ApprovalQuestionOptions): Choice[] {
  const lasting = options.lasting !== false;
  return [
    { value: 'once', key: 'y', label: 'Yes, approve once', lasting: false },
    ...(lasting && options.prefixPattern
      ? [
          {
            value: 'prefix' as const,
            key: 'p',
            label: `Allow ${options.prefixPattern} for this session (p, then Enter)`,
            lasting: true,
          },
        ]
      : []),
    ...(lasting
      ? [
          {
            value: 'session' as const,
            key: 'a',
            label: options.shell
              ? `Approve every ${tool} command for this session (a, then Enter, then confirm)`
              : `Approve ${tool} for this session (a, then Enter)`,
            lasting: true,
          },
        ]
      : []),
    { value: 'edit', key: 'e', label: 'Edit the arguments', lasting: false },
    { value: 'reject', key: 'n', label: 'No, reject with a message for the model', lasting: false },
  ];
}

/** A printable key with no Ctrl or Meta: one that could be part of typed text. */
function printable(char: string | undefined, key: Key | undefined): char is string {
  return !!char && !key?.ctrl && !key?.meta && !/[\u0000-\u001f\u007f]/.test(char);
}

/**
 * The question itself: choices with arrows and Enter, `y`, `e`, `n` on one key, lasting choices (`p`, `a`) selected
 * by their key and confirmed with Enter, and typed text kept as text. Readline keeps the typed line (`userInput`).
 */
class ApprovalPrompt extends Prompt<ApprovalAnswer> {
  cursor = -1;
  ignored = 0;
  notice = '';
  constructor(
    readonly choices: Choice[],
    private readonly ready: () => boolean,
    render: (self: ApprovalPrompt) => string,
    io: Io,
  ) {
    super({ input: io.stdin, output: io.stdout, render: () => render(this) }, true);
  }

  get text(): string {
    return this.userInput;
  }

  clearText(): void {
    this._clearUserInput();
  }

  protected override _shouldSubmit(): boolean {
    if (!this.ready()) {
      this.ignored++;
      return false;
    }
    if (this.text.trim()) {
      this.value = { choice: 'reject', message: this.text.trim() };
      return true;
    }
    const picked = this.choices[this.cursor];
    if (!picked) {
      this.notice = 'Enter confirms a choice: pick one with its key or the arrows first';
      return false;
    }
    this.value = { choice: picked.value };
    return true;
  }
}

/**
 * The approval question: the box saying what the call does (its arguments, or the diff of the files it changes),
 * then the choices. `y` (once), `e` (edit) and `n` (reject) answer on one key; a choice that lasts beyond this call
 * (`p` a command pattern, `a` the whole tool) is selected by its key and needs Enter. Anything else typed is text:
 * it shows under the choices, and Enter rejects the call with it as the message for the model, so typing "wait, do
 * not run it" never answers the question. Keys typed within `guardMs` of the question appearing are ignored (and
 * counted on screen). Esc rejects this call only; Ctrl+C cancels the whole turn, as everywhere else in a turn; both
 * act at any time, since neither runs anything. Box and choices are one frame, drawn at the terminal's width each
 * time: after a resize the prompt draws it again at the new width (the answered frame keeps the box).
 */
export async function askApprovalChoice(
  io: Io,
  style: Style,
  tool: string,
  box: ApprovalBox,
  options: ApprovalQuestionOptions = {},
): Promise<ApprovalAnswer> {
  const out = io.stdout as { columns?: number; rows?: number };
  const now = options.now ?? Date.now;
  const readyAt = now() + (options.guardMs ?? APPROVAL_GUARD_MS);
  const ready = () => now() >= readyAt;
  // The choices take up to nine rows; the box gets the rest of the screen, so the frame never scrolls.
  const boxRows = () => Math.max(6, (out.rows || 40) - 11);
  // A call taller than that is printed whole above the question first: a user approves only what they were shown, so
  // the frame's box may leave lines out only when they can be read above it.
  const whole = boxLines(box, style, out.columns || 80, Number.POSITIVE_INFINITY);
  const printedAbove = whole.length - 2 > boxRows();
  if (printedAbove) io.stdout.write(`${whole.join('\n')}\n`);
  const boxed = () =>
    boxLines(
      box,
      style,
      out.columns || 80,
      boxRows(),
      printedAbove ? ': the whole call is printed above' : '',
    ).join('\n');
  const choices = choicesFor(tool, options);
  let lastKey: string | undefined;
  const render = (self: ApprovalPrompt): string => {
    const picked = self.value?.choice;
    if (self.state === 'submit') {
      const label =
        picked === 'reject' && self.value?.message
          ? `rejected: ${visible(self.value.message)}`
          : (choices.find((c) => c.value === picked)?.label ?? '');
      return `${boxed()}\n${style('green', '◇')} Run it? ${style('dim', label)}`;
    }
    if (self.state === 'cancel')
      return `${boxed()}\n${style('red', '■')} Run it? ${style('dim', lastKey === 'escape' ? 'rejected (Esc)' : 'cancelled')}`;
    const keys = choices.map((c) => c.key).join('/');
    const lasting = choices
      .filter((c) => c.lasting)
      .map((c) => c.key)
      .join('/');
    const hint = ready()
      ? `${READY_HINT} · ${lasting} then Enter · or type a reason · Esc rejects · Ctrl+C cancels`
      : `${keys} · reading (keys typed now are ignored)`;
    const rows = choices.map((c, i) => {
      const line = `[${c.key}] ${c.label}`;
      return i === self.cursor
        ? `${style('cyan', '●')} ${line}`
        : `${style('dim', '○')} ${style('dim', line)}`;
    });
    const typed = self.text
      ? [
          `› ${visible(self.text)}█`,
          style('dim', 'Enter rejects the call with this message for the model · Ctrl+U clears it'),
        ]
      : [];
    const notes = [
      ...(self.ignored
        ? [
            style(
              'yellow',
              `ignored ${self.ignored} key${self.ignored === 1 ? '' : 's'} typed as the question appeared`,
            ),
          ]
        : []),
      ...(self.notice ? [style('yellow', self.notice)] : []),
    ];
    return [
      boxed(),
      `${style('cyan', '◆')} Run it? ${style('dim', hint)}`,
      ...[...rows, ...typed, ...notes].map((r) => `${style('cyan', '│')} ${r}`),
      style('cyan', '└'),
    ].join('\n');
  };
  const prompt = new ApprovalPrompt(choices, ready, render, io);
  // The typed line as it was before this key: a key answers only when nothing was being typed.
  let before = '';
  let typedAfter: string[] | undefined;
  const collect = (char: string | undefined, key: Key) => {
    if (printable(char, key)) typedAfter?.push(char);
  };
  prompt.on('key', (char: string | undefined, key: Key) => {
    lastKey =
      key?.name === 'escape'
        ? 'escape'
        : char === '\x03' || (key?.ctrl && key.name === 'c')
          ? 'ctrl-c'
          : char;
    prompt.notice = '';
    if (key?.name === 'return' || lastKey === 'escape' || lastKey === 'ctrl-c') return;
    if (!ready()) {
      prompt.ignored++;
      if (prompt.text) prompt.clearText();
      return;
    }
    const choice =
      before === '' && printable(char, key) ? choices.findIndex((c) => c.key === char.toLowerCase()) : -1;
    if (choice !== -1) {
      prompt.clearText();
      const picked = choices[choice]!;
      prompt.cursor = choice;
      if (!picked.lasting) {
        prompt.value = { choice: picked.value };
        prompt.state = 'submit';
        // The rest of what arrives with this key (a fast typist, a paste) goes to the prompt that follows.
        if (picked.value === 'reject' || picked.value === 'edit') {
          typedAfter = [];
          io.stdin.on('keypress', collect);
        }
      }
    } else if (!prompt.text && (key?.name === 'up' || key?.name === 'down')) {
      const step = key.name === 'up' ? -1 : 1;
      prompt.cursor = (Math.max(prompt.cursor, step === 1 ? -1 : 0) + step + choices.length) % choices.length;
    } else if (prompt.text) {
      // Typing a message deselects a choice: Enter now sends the message.
      prompt.cursor = -1;
    }
    before = prompt.text;
  });
  // Once keys count, the hint says so (tests wait for it). A timer does not read the clock `ready()` reads: when it
  // fires a moment early, it waits again, else the hint would say "reading" until the next key.
  let redraw: NodeJS.Timeout | undefined;
  const redrawWhenReady = () => {
    redraw = setTimeout(
      () => {
        if (!ready()) return redrawWhenReady();
        if (prompt.state === 'active' || prompt.state === 'initial')
          (prompt as unknown as { render(): void }).render();
      },
      Math.max(1, readyAt - now()),
    );
  };
  redrawWhenReady();
  let value: ApprovalAnswer | symbol | undefined;
  try {
    value = await prompt.prompt();
  } finally {
    clearTimeout(redraw);
    io.stdin.off('keypress', collect);
  }
  if (typeof value !== 'object') return { choice: lastKey === 'escape' ? 'escape' : 'cancel' };
  const rest = typedAfter?.join('');
  return rest ? { ...value, typedAfter: rest } : value;
}
