import { cp, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CLI_ROOT, scripted } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';
import { runCli } from './helpers/run-in-process.js';

// The bundled filesystem skill, copied so a test can edit its SKILL.md; its write tools declare previews.
const FILESYSTEM = join(CLI_ROOT, '..', '..', 'skills', 'filesystem');
const STATUS_SESSION = /│ session: (\S+) │/;

const repl = useReplSandbox(scripted('approvals.json'));
let args: string[];
beforeEach(async () => {
  const skills = join(repl.box.dir.path, 'skills');
  await cp(FILESYSTEM, join(skills, 'filesystem'), { recursive: true });
  await writeFile(join(repl.box.cwd, 'notes.txt'), 'one\ntwo\nthree\n');
  args = ['--skills-dir', skills, '--enable', 'filesystem'];
});

const start = (extra: string[] = []) => repl.start([...extra, ...args]);

const notes = () => readFile(join(repl.box.cwd, 'notes.txt'), 'utf8');

describe('file changes and approvals kept with the session (real terminal)', { timeout: 90_000 }, () => {
  it('shows the diff of a write, keeps "a" with the session across a resume and birdie run, and asks again after the skill file changed', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('rewrite notes');
    await t.expect('write_file (filesystem) needs approval');
    // The diff of the file as it is now: one line replaced.
    await t.expect('--- notes.txt');
    await t.expect('+++ notes.txt');
    await t.expect('@@ -1,3 +1,3 @@');
    await t.expect(/│ -two\n│ \+2\n│ {2}three/);
    await t.expect('[a] Approve write_file for this session (a, then Enter)');
    expect(await notes()).toBe('one\ntwo\nthree\n');
    await t.approveForSession();
    await t.expect('Rewrote the notes.');
    const id = STATUS_SESSION.exec(await t.expect(STATUS_SESSION))![1]!;
    expect(await notes()).toBe('one\n2\nthree\n');
    await t.submit('/session info');
    await t.expect('approved for this session: write_file (filesystem)');
    await t.submit('/exit');
    expect(await t.exited).toBe(0);

    // A new process on the same session: the same tool of the same file runs without asking.
    const resumed = start(['--session-id', id]);
    await resumed.expect('/help for commands');
    await resumed.submit('rewrite again');
    await resumed.expect('✓ write_file approved for this session');
    await resumed.expect('Rewrote them again.');
    expect(resumed.text).not.toContain('needs approval');
    expect(await notes()).toBe('one\n2\n3\n');
    await resumed.submit('/exit');
    expect(await resumed.exited).toBe(0);

    // birdie run on the session does not ask either (no --yes needed), and --json says why.
    const run = await runCli(['run', '--json', ...args, '--session-id', id, 'rewrite by run'], {
      env: repl.box.env,
      cwd: repl.box.cwd,
    });
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    const approved = events.find((e) => e.type === 'tool-approved');
    expect(approved).toEqual({
      type: 'tool-approved',
      id: expect.any(String),
      name: 'write_file',
      skill: 'filesystem',
      scope: 'session',
    });
    expect(events.map((e) => e.type)).not.toContain('approval-refused');
    expect(await notes()).toBe('uno\n');

    // The skill file changed: the approval was given to the old one, so the user is asked again.
    const skillFile = join(repl.box.dir.path, 'skills', 'filesystem', 'SKILL.md');
    await writeFile(
      skillFile,
      (await readFile(skillFile, 'utf8')).replace(
        'tags: [local, fs, files]',
        'tags: [local, fs, files, edited]',
      ),
    );
    const edited = start(['-c']);
    await edited.expect(`resuming ${id}`);
    await edited.submit('rewrite once more');
    await edited.expect('write_file (filesystem) needs approval');
    await edited.expect(/│ -uno\n│ \+last/);
    await edited.expect('[y] Yes, approve once');
    await edited.approvalReady();
    edited.write('y');
    await edited.expect('Rewrote them once more.');
    expect(await notes()).toBe('last\n');
    await edited.submit('/exit');
    expect(await edited.exited).toBe(0);
  });

  it('redraws the approval box at the new width when the terminal is resized while it asks', async () => {
    const t = start();
    await t.expect('/help for commands');
    await t.submit('make a folder');
    await t.expect(/◇ create_directory \(filesystem\) needs approval ─+/);
    await t.expect('+ new folder src/lib/');
    await t.expect('[y] Yes, approve once');
    const mark = t.mark;
    t.resize(60, 30);
    // Drawn again for 60 columns: the title's rule ends one column short of the edge, and no line is wider.
    await t.expect(/◇ create_directory \(filesystem\) needs approval ─{12}\n/);
    await t.expect('[y] Yes, approve once');
    const redrawn = t.text.slice(mark).split('\n');
    expect(redrawn.length).toBeGreaterThan(5);
    for (const line of redrawn) expect(line.length, line).toBeLessThan(60);
    // On the screen (redraws applied): the question once, drawn for 60 columns, no piece of the wide one left over.
    const screen = await t.screen();
    const from = screen.lastIndexOf('› make a folder');
    const shown = screen.slice(from).split('\n').slice(1);
    expect(shown.filter((line) => line.includes('needs approval'))).toEqual([
      `◇ create_directory (filesystem) needs approval ${'─'.repeat(12)}`,
    ]);
    expect(shown.filter((line) => line.includes('[y] Yes, approve once'))).toHaveLength(1);
    for (const line of shown) expect(line.length, line).toBeLessThan(60);
    expect(shown.join('\n')).not.toMatch(/─{13}/);
    await t.approvalReady();
    t.write('y');
    await t.expect('Made the folder.');
    expect((await stat(join(repl.box.cwd, 'src', 'lib'))).isDirectory()).toBe(true);
    await t.submit('/exit');
    expect(await t.exited).toBe(0);
  });
});

describe('file changes without a terminal', { timeout: 60_000 }, () => {
  it('birdie run refuses an unapproved write (it cannot ask); --approval never runs it without asking', async () => {
    const refused = await runCli(['run', ...args, 'rewrite notes'], { env: repl.box.env, cwd: repl.box.cwd });
    expect(refused.stderr).toContain(
      'write_file {"path":"notes.txt","content":"one\\n2\\nthree\\n"} needs approval',
    );
    expect(await notes()).toBe('one\ntwo\nthree\n');

    const never = await runCli(['run', '--approval', 'never', ...args, 'rewrite notes'], {
      env: repl.box.env,
      cwd: repl.box.cwd,
    });
    expect(never.code).toBe(0);
    expect(never.stderr).not.toContain('needs approval');
    expect(await notes()).toBe('one\n2\nthree\n');
  });
});
