import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Io } from '../io.js';
import { type ApprovalQuestionOptions, askApprovalChoice } from './approval-choice.js';

const plain = (_format: unknown, text: string) => text;

/** The question on fake streams, with a clock the test moves: keys are typed "at" a given time. */
function question(options: ApprovalQuestionOptions = {}) {
  let time = 1_000;
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 100, rows: 40 });
  let shown = '';
  stdout.on('data', (chunk: Buffer) => {
    shown += chunk.toString('utf8');
  });
  const io = { stdin, stdout, stderr: stdout, env: {}, cwd: '/' } as unknown as Io;
  const answer = askApprovalChoice(
    io,
    plain,
    'run_bash',
    { title: 'run_bash needs approval', lines: [{ text: 'Run shell command: npm test' }] },
    { now: () => time, ...options },
  );
  return {
    answer,
    /** Types `keys` `ms` after the question appeared. */
    async type(keys: string, ms: number) {
      time = 1_000 + ms;
      stdin.write(keys);
      await new Promise((resolve) => setImmediate(resolve));
    },
    text: () => stripVTControlCharacters(shown),
    /** Sets the clock to `ms` after the question appeared, typing nothing. */
    at(ms: number) {
      time = 1_000 + ms;
    },
    stdin,
  };
}

describe('askApprovalChoice', () => {
  it('ignores keys typed within 400 ms of the question appearing, and says it did', async () => {
    const q = question();
    await q.type('y', 0);
    await q.type('y', 399);
    await q.type('\r', 399);
    expect(q.text()).toContain('ignored 3 keys typed as the question appeared');
    await q.type('y', 400);
    expect(await q.answer).toEqual({ choice: 'once' });
  });

  it('answers on one key only with y, e and n; a lasting choice needs Enter', async () => {
    const once = question();
    await once.type('e', 500);
    expect(await once.answer).toEqual({ choice: 'edit' });

    const session = question({ shell: true, prefixPattern: 'run_bash(npm test *)' });
    await session.type('p', 500);
    expect(session.text()).toContain('● [p] Allow run_bash(npm test *) for this session');
    await session.type('a', 600);
    expect(session.text()).toContain('● [a] Approve every run_bash command for this session');
    await session.type('\r', 700);
    expect(await session.answer).toEqual({ choice: 'session' });
  });

  it('typed text is a message: its letters answer nothing and Enter rejects with it', async () => {
    const q = question();
    await q.type('wait, do not run it', 500);
    expect(q.text()).toContain('› wait, do not run it');
    await q.type('\r', 600);
    expect(await q.answer).toEqual({ choice: 'reject', message: 'wait, do not run it' });
  });

  it('keeps what arrives with the `n` that answered, for the message prompt', async () => {
    const q = question();
    await q.type('nnot now', 500);
    expect(await q.answer).toEqual({ choice: 'reject', typedAfter: 'not now' });
  });

  it('shows that keys count once the guard is over, even when its timer fires a moment before the clock says so', async () => {
    // A timer and Date.now() do not read the same clock: the redraw may come when `now()` is still short of the
    // guard's end. The hint must not stay at "reading" (a pty test waits for it, and so does the user).
    const q = question({ guardMs: 30 });
    q.at(29);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(q.text()).not.toContain('y/e/n answer at once');
    q.at(40);
    for (let i = 0; i < 200 && !q.text().includes('y/e/n answer at once'); i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(q.text()).toContain('y/e/n answer at once');
    await q.type('n', 50);
    expect(await q.answer).toEqual({ choice: 'reject' });
  });
});
