import type { Key } from 'node:readline';
import { isCancel, SelectPrompt } from '@clack/core';
import type { Io } from '../io.js';
import type { Style } from '../render/style.js';
import { type ApprovalBox, boxLines } from './approval-box.js';

export type ApprovalChoice = 'once' | 'session' | 'edit' | 'reject';

/** What the question ended with: a choice, Esc (this call is rejected), or Ctrl+C (the turn is cancelled). */
export type ApprovalAnswer = ApprovalChoice | 'escape' | 'cancel';

interface Choice {
  value: ApprovalChoice;
  key: string;
  label: string;
}

/**
 * The approval question: the box saying what the call does (its arguments, or the diff of the files it changes),
 * then the choices. One key answers it (y, a, e, n), arrows and Enter work too. Esc rejects this call only; Ctrl+C
 * cancels the whole turn, as everywhere else in a turn. Box and choices are one frame, drawn at the terminal's width
 * each time: after a resize the prompt draws it again at the new width (the answered frame keeps the box).
 */
export async function askApprovalChoice(
  io: Io,
  style: Style,
  tool: string,
  box: ApprovalBox,
): Promise<ApprovalAnswer> {
  const out = io.stdout as { columns?: number; rows?: number };
  const boxed = () => {
    const width = out.columns || 80;
    // The choices take seven rows; the box gets the rest of the screen, so the frame never scrolls.
    const rows = Math.max(6, (out.rows || 40) - 9);
    return boxLines(box, style, width, rows).join('\n');
  };
  const choices: Choice[] = [
    { value: 'once', key: 'y', label: 'Yes, approve once' },
    { value: 'session', key: 'a', label: `Approve ${tool} for this session` },
    { value: 'edit', key: 'e', label: 'Edit the arguments' },
    { value: 'reject', key: 'n', label: 'No, reject with a message for the model' },
  ];
  let lastKey: string | undefined;
  const prompt: SelectPrompt<Choice> = new SelectPrompt<Choice>({
    input: io.stdin,
    output: io.stdout,
    options: choices,
    render() {
      const self = this as unknown as SelectPrompt<Choice>;
      const picked = choices[self.cursor]!;
      if (self.state === 'submit')
        return `${boxed()}\n${style('green', '◇')} Run it? ${style('dim', picked.label)}`;
      if (self.state === 'cancel')
        return `${boxed()}\n${style('red', '■')} Run it? ${style('dim', lastKey === 'escape' ? 'rejected (Esc)' : 'cancelled')}`;
      const rows = choices.map((c, i) => {
        const line = `[${c.key}] ${c.label}`;
        return i === self.cursor
          ? `${style('cyan', '●')} ${line}`
          : `${style('dim', '○')} ${style('dim', line)}`;
      });
      return [
        boxed(),
        `${style('cyan', '◆')} Run it? ${style('dim', 'y/a/e/n · Esc rejects · Ctrl+C cancels the turn')}`,
        ...rows.map((r) => `${style('cyan', '│')} ${r}`),
        style('cyan', '└'),
      ].join('\n');
    },
  });
  prompt.on('key', (char: string | undefined, key: Key) => {
    lastKey =
      key?.name === 'escape'
        ? 'escape'
        : char === '\x03' || (key?.ctrl && key.name === 'c')
          ? 'ctrl-c'
          : char;
    const index = choices.findIndex((c) => c.key === char?.toLowerCase());
    if (index === -1) return;
    prompt.cursor = index;
    prompt.value = choices[index]!.value;
    prompt.state = 'submit';
  });
  const value = await prompt.prompt();
  if (isCancel(value) || value === undefined) return lastKey === 'escape' ? 'escape' : 'cancel';
  return value as ApprovalChoice;
}
