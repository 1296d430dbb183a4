import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, type Sandbox, sandbox } from './helpers/env.js';
import { Terminal } from './helpers/pty.js';
import { runCli } from './helpers/run-in-process.js';
import { script } from './helpers/sessions.js';

// A tool's output and a model's answer are data: a fetched page or a file read can hold terminal control sequences
// (set the window title, clear the screen, recolour, move the cursor). The CLI shows their text and never sends the
// sequences to the terminal (a user's report: `birdie run` passed them through, as did `sessions show`, `logs show`).

const ECHO_SKILLS = join(FIXTURES, 'echo-skills');
/** OSC (window title, ended by BEL), SGR, erase-display, an 8-bit CSI, a backspace and a carriage return overwrite. */
const HOSTILE =
  '\u001b]0;pwned\u0007\u001b[31mRED\u001b[0m \u001b[2Jcleared \u009b2Jc1 back\bspace fake\rREAL';
/** Every control character a terminal acts on, but the line feed and the tab. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** The same, but the carriage return a terminal's line discipline adds before each line feed. */
const CONTROL_BUT_CRLF = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/;

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(argv, { env: { ...box.env, ...env }, cwd: box.cwd });

describe('terminal control sequences in tool output and answers', { timeout: 60_000 }, () => {
  it('birdie run, sessions show and logs show print their text without the sequences', async () => {
    const env = await script(box.dir.path, 'hostile', [
      { match: 'echo', tool_calls: [{ name: 'echo_it', args: { text: HOSTILE } }] },
      { text: `The answer: ${HOSTILE} done.` },
    ]);
    const run = await cli(['run', '--skills-dir', ECHO_SKILLS, '--enable', 'echo', 'echo it'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(CONTROL);
    expect(run.stderr).not.toMatch(CONTROL);
    // The text is still there: what the terminal would have shown, less what the sequences would have done.
    expect(run.stderr).not.toMatch(/│ .*pwned/); // the title a sequence would have set is part of it
    // A carriage return is dropped, not obeyed: what it would have written over stays in view.
    expect(run.stderr).toContain('│ RED cleared c1 backspace fakeREAL\n');
    expect(run.stdout).toContain('The answer:');
    expect(run.stdout).toContain('done.');

    const id = /session (\S+) ·/.exec(run.stderr)![1]!;
    const shown = await cli(['sessions', 'show', id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('The answer:');
    expect(shown.stdout).not.toMatch(CONTROL);

    const runs = JSON.parse((await cli(['logs', '--json'])).stdout.trim().split('\n')[0]!) as { id: number };
    const log = await cli(['logs', 'show', String(runs.id)]);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain('The answer:');
    expect(log.stdout).not.toMatch(CONTROL);
    expect(log.stderr).not.toMatch(CONTROL);

    // JSON is exact: the sequences are there, their C0 controls escaped as JSON escapes them.
    const json = await cli(['sessions', 'show', id, '--json']);
    expect(json.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(json.stdout).toContain('\\u001b]0;pwned\\u0007');
  });
});

describe('birdie tool and control sequences', { timeout: 60_000 }, () => {
  it('writes the exact bytes into a pipe, and text without the sequences into a terminal', async () => {
    const args = [
      'tool',
      'echo_it',
      '--skills-dir',
      ECHO_SKILLS,
      '--args',
      JSON.stringify({ text: HOSTILE }),
    ];
    const piped = await cli(args);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(`${HOSTILE}\n`);

    const terminal = new Terminal(args, { env: box.env, cwd: box.cwd });
    expect(await terminal.exited).toBe(0);
    expect(terminal.output).not.toMatch(CONTROL_BUT_CRLF);
    expect(terminal.output).toContain('RED cleared c1 backspace fakeREAL');
  });
});
