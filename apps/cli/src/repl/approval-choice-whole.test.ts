import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Io } from '../io.js';
import { askApprovalChoice } from './approval-choice.js';

// Exploratory report (author) #1, its sibling in the REPL: an approval box taller than the screen showed its first
// lines and "… N more lines", and "Approve once" ran the lines the user never saw.

const plain = (_format: unknown, text: string) => text;

describe('askApprovalChoice with a call taller than the screen', () => {
  it('prints the whole call above the question before it can be approved', async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
    const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 100, rows: 30 });
    let shown = '';
    stdout.on('data', (chunk: Buffer) => {
      shown += chunk.toString('utf8');
    });
    const io = { stdin, stdout, stderr: stdout, env: {}, cwd: '/' } as unknown as Io;
    const lines = Array.from({ length: 80 }, (_, i) => ({ text: `line ${i}` }));
    lines.push({ text: 'echo HIDDEN > pwned.txt' });
    let time = 1_000;
    const answer = askApprovalChoice(
      io,
      plain,
      'run_bash',
      { title: 'run_bash needs approval', lines },
      { now: () => time },
    );
    await new Promise((resolve) => setImmediate(resolve));
    const text = stripVTControlCharacters(shown);
    for (const line of lines) expect(text).toContain(line.text);
    expect(text).toContain('the whole call is printed above');
    time = 2_000;
    stdin.write('y');
    expect(await answer).toEqual({ choice: 'once' });
  });
});
