import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

/*
 * Deny rules under `--yes` against a program named by a brace, a glob, a substitution, `coproc` or a git alias
 * (exploratory report, stop 68: each of these removed the file or pushed), and how a turn whose calls a deny rule
 * refused ends (it ended `ok`, exit 0).
 */

let box: Sandbox;
let script: string;
beforeEach(async () => {
  box = await sandbox();
  script = join(box.dir.path, 'script.json');
  box.env = { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script };
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });

type Event = { type: string; [key: string]: unknown };

/** `birdie run --json` with a scripted model running each of `commands` in one turn. */
async function run(commands: string[], flags: string[]) {
  const calls = commands.map((command) => ({ name: 'run_command', args: { command } }));
  await writeFile(script, JSON.stringify({ replies: [{ tool_calls: calls }, { text: 'done' }] }));
  const result = await cli([
    'run',
    '--json',
    '--skills-dir',
    TEST_SKILLS,
    '--enable',
    'raw-shell',
    ...flags,
    'go',
  ]);
  const events = result.stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Event);
  return { ...result, events };
}

const git = (args: string[], cwd: string) =>
  execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd, encoding: 'utf8' });

describe('a deny rule and a program named by an expansion', { timeout: 90_000 }, () => {
  it('refuses rm and git push behind braces, globs, substitutions, coproc and git aliases, even under --yes', async () => {
    const remote = join(box.dir.path, 'remote.git');
    git(['init', '-q', '--bare', remote], box.dir.path);
    git(['init', '-q'], box.cwd);
    git(['commit', '-q', '--allow-empty', '-m', '1'], box.cwd);
    git(['remote', 'add', 'origin', remote], box.cwd);
    await writeFile(join(box.cwd, 'victim'), 'x');
    expect(await cli(['config', 'add', 'permissions.deny', 'run_command(rm *)'])).toMatchObject({ code: 0 });
    expect(await cli(['config', 'add', 'permissions.deny', 'run_command(git push *)'])).toMatchObject({
      code: 0,
    });
    const commands = [
      '{rm,victim}',
      '/bin/r? victim',
      '/usr/bin/r[m] victim',
      '"$(echo rm)" victim',
      '`echo rm` victim',
      'coproc rm victim',
      `eval "$(printf 'r''m victim')"`,
      'git {push,origin,HEAD:b0}',
      'git -c alias.p=push p origin HEAD:b1',
      'git -c alias.q="!git push origin HEAD:b2" q',
      "git -c alias.x='!rm victim' x",
    ];
    const result = await run(commands, ['--yes']);
    const ends = result.events.filter((e) => e.type === 'tool-end');
    expect(ends).toHaveLength(commands.length);
    for (const [i, end] of ends.entries())
      expect(end, commands[i]).toMatchObject({ ok: false, outcome: 'refused' });
    const denied = result.events.filter((e) => e.type === 'tool-rule' && e.effect === 'deny');
    expect(denied).toHaveLength(commands.length);
    expect(existsSync(join(box.cwd, 'victim'))).toBe(true);
    expect(git(['branch', '--list'], remote)).toBe('');
    // Calls were refused: the turn is `rejected`, and the exit code says it did not all run.
    expect(result.events.find((e) => e.type === 'done')).toMatchObject({ status: 'rejected' });
    expect(result.code).toBe(1);
  });

  it('a glob that cannot name rm is not denied for it: under --yes it runs', async () => {
    await writeFile(join(box.cwd, 'victim'), 'x');
    await cli(['config', 'add', 'permissions.deny', 'run_command(rm *)']);
    const result = await run(['/bin/ech? victim'], ['--yes']);
    expect(result.events.filter((e) => e.type === 'tool-rule' && e.effect === 'deny')).toEqual([]);
    expect(result.events.find((e) => e.type === 'tool-end')).toMatchObject({ ok: true });
    expect(result.events.find((e) => e.type === 'done')).toMatchObject({ status: 'ok' });
    expect(result.code).toBe(0);
  });

  it('a turn whose only call a deny rule refused ends rejected, exit 1, and the run log says so', async () => {
    await writeFile(join(box.cwd, 'victim'), 'x');
    await cli(['config', 'add', 'permissions.deny', 'run_command(rm *)']);
    const result = await run(['rm victim'], []);
    expect(result.events.find((e) => e.type === 'tool-end')).toMatchObject({ ok: false, outcome: 'refused' });
    expect(result.events.find((e) => e.type === 'done')).toMatchObject({ status: 'rejected' });
    expect(result.code).toBe(1);
    expect(existsSync(join(box.cwd, 'victim'))).toBe(true);
    const logs = await cli(['logs', '--json']);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain('"status":"rejected"');
  });
});

// Reported with the above: one bad entry in a project's `.birdie/settings.json` switched off all its rules, its deny
// rules included, while the next line said they applied.
describe("a project's settings file with a bad entry", { timeout: 90_000 }, () => {
  const project = async (permissions: unknown) => {
    await mkdir(join(box.cwd, '.birdie'), { recursive: true });
    await writeFile(join(box.cwd, '.birdie', 'settings.json'), JSON.stringify({ permissions }));
  };

  it('keeps its other deny rules, and names the entry it could not use', async () => {
    await writeFile(join(box.cwd, 'victim'), 'x');
    await project({ deny: ['run_command(touch', 'run_command(rm *)'] });
    const result = await run(['rm victim'], ['--yes']);
    expect(result.events.find((e) => e.type === 'tool-rule')).toMatchObject({ effect: 'deny' });
    expect(existsSync(join(box.cwd, 'victim'))).toBe(true);
    expect(result.stderr).toContain('run_command(touch');
    expect(result.stderr).toMatch(/the others apply/);
  });

  it('takes a deny rule written as a string, not a list', async () => {
    await writeFile(join(box.cwd, 'victim'), 'x');
    await project({ deny: 'run_command(rm *)' });
    const result = await run(['rm victim'], ['--yes']);
    expect(existsSync(join(box.cwd, 'victim'))).toBe(true);
    expect(result.stderr).toContain('permissions.deny');
  });

  it('that cannot be read stops the run (exit 2) rather than run without its deny rules', async () => {
    await writeFile(join(box.cwd, 'victim'), 'x');
    await mkdir(join(box.cwd, '.birdie'), { recursive: true });
    await writeFile(
      join(box.cwd, '.birdie', 'settings.json'),
      '{"permissions":{"deny":["run_command(rm *)"],}}',
    );
    const result = await run(['rm victim'], ['--yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('.birdie/settings.json');
    expect(result.stderr).toMatch(/deny rules/);
    expect(existsSync(join(box.cwd, 'victim'))).toBe(true);
  });
});
