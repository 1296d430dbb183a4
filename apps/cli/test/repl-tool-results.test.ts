import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_ROOT, FIXTURES, scripted } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';
import { runCli } from './helpers/run-in-process.js';

// noisy-tools: `fail_noisily` runs `echo out-words; echo err-words >&2; exit 3`, `print_lines` prints fifty lines.
const RESULT_SKILLS = join(FIXTURES, 'result-skills');
const FILESYSTEM = join(CLI_ROOT, '..', '..', 'skills', 'filesystem');
const STATUS_SESSION = /│ session: (\S+) │/;

const repl = useReplSandbox(scripted('tool-results.json'));

const count = (text: string, part: string) => text.split(part).length - 1;

/** The screen from the last time `line` was typed at the prompt. */
async function since(t: { screen(): Promise<string> }, line: string): Promise<string> {
  const screen = await t.screen();
  return screen.slice(screen.lastIndexOf(`› ${line}`));
}

describe('tool results in the REPL (compiled CLI, real terminal)', { timeout: 60_000 }, () => {
  it('a failing command shows its stderr once, under no wrong label, with the exit code; the model gets it once', async () => {
    const t = repl.start(['--skills-dir', RESULT_SKILLS]);
    await t.expect('/help for commands');
    await t.submit('fail noisily');
    await t.expect('The command failed.');
    const id = STATUS_SESSION.exec(await t.expect(STATUS_SESSION))![1]!;
    await t.prompt();
    const shown = await since(t, 'fail noisily');
    expect(shown).toMatch(
      /⚙ fail_noisily \(noisy-tools\) \{\}\n│ Error \(non-zero-exit\): command exited with code 3\n│ output:\n│ out-words\n│ err-words\n└ ✗ failed fail_noisily/,
    );
    expect(count(shown, 'err-words')).toBe(1);
    expect(count(shown, 'out-words')).toBe(1);
    expect(shown).not.toContain('stderr:');
    t.write('/quit\r');
    expect(await t.exited).toBe(0);

    // What the model read: the session's stored tool message, with each stream once and the exit code.
    const stored = await runCli(['sessions', 'show', id, '--json'], { env: repl.box.env, cwd: repl.box.cwd });
    expect(stored.code, stored.stderr).toBe(0);
    const messages = stored.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { role: string; content: string; status?: string });
    const tool = messages.filter((m) => m.role === 'tool');
    expect(tool).toHaveLength(1);
    expect(tool[0]!.status).toBe('error');
    expect(tool[0]!.content).toContain('exited with code 3');
    expect(count(tool[0]!.content, 'err-words')).toBe(1);
    expect(count(tool[0]!.content, 'out-words')).toBe(1);
    expect(tool[0]!.content).not.toContain('stderr:');
  });

  it('"short" output, the default, shows the first lines of fifty and how many more there are', async () => {
    const t = repl.start(['--skills-dir', RESULT_SKILLS]);
    await t.expect('/help for commands');
    await t.submit('print many lines');
    await t.expect('Printed them.');
    await t.prompt();
    const shown = await since(t, 'print many lines');
    expect(shown).toMatch(
      /⚙ print_lines \(noisy-tools\) \{\}\n│ row 1 of fifty\n│ row 2 of fifty\n│ row 3 of fifty\n│ row 4 of fifty\n│ row 5 of fifty\n└ ✓ print_lines · 50 lines, … 45 more lines · /,
    );
    expect(shown).not.toContain('row 6 of fifty');
    expect(shown).not.toContain('row 50 of fifty');
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
  });
});

describe('append_file asks first and shows its diff (real terminal)', { timeout: 60_000 }, () => {
  it('under the default approval mode the box shows the lines it adds; the file changes only once approved', async () => {
    const skills = join(repl.box.dir.path, 'skills');
    await cp(FILESYSTEM, join(skills, 'filesystem'), { recursive: true });
    const notes = join(repl.box.cwd, 'notes.txt');
    await writeFile(notes, 'one\ntwo\nthree\n');
    const t = repl.start(['--skills-dir', skills, '--enable', 'filesystem']);
    await t.expect('/help for commands');
    await t.submit('append a line');
    await t.expect('append_file (filesystem) needs approval');
    await t.expect('[y] Yes, approve once');
    const box = await since(t, 'append a line');
    expect(box).toMatch(
      /│ --- notes\.txt\n│ \+\+\+ notes\.txt\n│ @@ -1,3 \+1,4 @@\n│ {2}one\n│ {2}two\n│ {2}three\n│ \+four\n/,
    );
    expect(await readFile(notes, 'utf8')).toBe('one\ntwo\nthree\n');
    await t.approvalReady();
    t.write('y');
    await t.expect('Appended the line.');
    expect(await readFile(notes, 'utf8')).toBe('one\ntwo\nthree\nfour\n');
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
  });
});
