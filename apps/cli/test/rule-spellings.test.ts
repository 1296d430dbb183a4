import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

const BUNDLED_SKILLS = fileURLToPath(new URL('../../../skills', import.meta.url));

/*
 * Approval rules against other spellings of the same command (exploratory report #3–#7): a deny rule sees through
 * runners, git's global options and a program's path; an allow rule's `*` never covers a program run by the command.
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

/** `birdie run --json` with a scripted model making `calls` in one turn. */
async function run(
  calls: Array<{ name: string; args: Record<string, unknown> }>,
  flags: string[],
  skills = ['--skills-dir', TEST_SKILLS, '--enable', 'raw-shell'],
) {
  await writeFile(script, JSON.stringify({ replies: [{ tool_calls: calls }, { text: 'done' }] }));
  const result = await cli(['run', '--json', ...skills, ...flags, 'go']);
  const events = result.stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Event);
  return { ...result, events };
}

const bash = (command: string) => ({ name: 'run_command', args: { command } });
const git = (args: string[], cwd: string) =>
  execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd, encoding: 'utf8' });

describe('approval rules and the spellings of a command', { timeout: 90_000 }, () => {
  it('a deny rule refuses git push behind global options, runners, a path, even under --yes (#3)', async () => {
    const remote = join(box.dir.path, 'remote.git');
    git(['init', '-q', '--bare', remote], box.dir.path);
    git(['init', '-q'], box.cwd);
    git(['commit', '-q', '--allow-empty', '-m', '1'], box.cwd);
    git(['remote', 'add', 'origin', remote], box.cwd);
    await writeFile(join(box.cwd, 'precious'), 'x');
    expect(await cli(['config', 'add', 'permissions.deny', 'run_command(git push *)'])).toMatchObject({
      code: 0,
    });
    expect(await cli(['config', 'add', 'permissions.deny', 'run_command(rm *)'])).toMatchObject({ code: 0 });
    const commands = [
      'git push origin HEAD:b0',
      'git -C . push origin HEAD:b1',
      'git --no-pager push origin HEAD:b2',
      'git -c k.v=1 push origin HEAD:b3',
      'env git push origin HEAD:b4',
      'timeout 60 git push origin HEAD:b5',
      '/usr/bin/git push origin HEAD:b6',
      'nice -n 5 git push origin HEAD:b7',
      "sh -c 'git push origin HEAD:b8'",
      'git push --receive-pack=git-receive-pack origin HEAD:b9',
      '\\rm precious',
      'command rm precious',
      'x=1; rm precious',
    ];
    const result = await run(commands.map(bash), ['--yes']);
    const ends = result.events.filter((e) => e.type === 'tool-end');
    expect(ends).toHaveLength(commands.length);
    for (const end of ends) expect(end).toMatchObject({ ok: false, outcome: 'refused' });
    const denied = result.events.filter((e) => e.type === 'tool-rule' && e.effect === 'deny');
    expect(denied).toHaveLength(commands.length);
    expect(git(['branch', '--list'], remote)).toBe('');
    expect(existsSync(join(box.cwd, 'precious'))).toBe(true);
  });

  it('run_command(git *) does not cover git bisect run CMD: it asks, and says why (#5)', async () => {
    git(['init', '-q'], box.cwd);
    git(['commit', '-q', '--allow-empty', '-m', '1'], box.cwd);
    git(['commit', '-q', '--allow-empty', '-m', '2'], box.cwd);
    const first = git(['rev-list', '--max-parents=0', 'HEAD'], box.cwd).trim();
    await writeFile(join(box.cwd, 'precious'), 'x');
    await cli(['config', 'add', 'permissions.allow', 'run_command(git *)']);
    const result = await run([bash(`git bisect start HEAD ${first} && git bisect run rm -f precious`)], []);
    expect(result.events.filter((e) => e.type === 'tool-rule')).toEqual([]);
    expect(result.events.map((e) => e.type)).toContain('approval-refused');
    expect(result.stdout).toMatch(/"ruleMiss":"[^"]*runs another program or code/);
    expect(existsSync(join(box.cwd, 'precious'))).toBe(true);
  });

  it('run_command(npm *), (pnpm *), (yarn *) do not cover exec/dlx, which run any program (#6)', async () => {
    await cli(['config', 'add', 'permissions.allow', 'run_command(npm *)']);
    await cli(['config', 'add', 'permissions.allow', 'run_command(pnpm *)']);
    await cli(['config', 'add', 'permissions.allow', 'run_command(yarn *)']);
    for (const command of [
      'npm exec -- touch pwned',
      'npm x -- touch pwned',
      'pnpm exec touch pwned',
      'pnpm dlx touch pwned',
      'yarn exec touch pwned',
      'yarn dlx touch pwned',
    ]) {
      const result = await run([bash(command)], []);
      expect(
        result.events.filter((e) => e.type === 'tool-rule'),
        command,
      ).toEqual([]);
      expect(
        result.events.some((e) => e.type === 'approval-refused'),
        command,
      ).toBe(true);
    }
    expect(existsSync(join(box.cwd, 'pwned'))).toBe(false);
  });

  it('run_command(test -f *) does not cover test -v with an array subscript, which runs code (#7)', async () => {
    await cli(['config', 'add', 'permissions.allow', 'run_command(test -f *)']);
    await cli(['config', 'add', 'permissions.allow', 'run_command(test *)']);
    const pwned = join(box.dir.path, 'pwned');
    for (const command of [
      `test -f package.json -o -v 'a[$(touch ${pwned})]'`,
      `test -v 'x[$(touch ${pwned})]'`,
    ]) {
      const result = await run([bash(command)], []);
      expect(
        result.events.filter((e) => e.type === 'tool-rule'),
        command,
      ).toEqual([]);
    }
    expect(existsSync(pwned)).toBe(false);
    // plain tests stay allowed
    const plain = await run([bash('test -f package.json')], []);
    expect(plain.events).toContainEqual(expect.objectContaining({ type: 'tool-rule', effect: 'allow' }));
  });
  it('path rules match the real path: a symlink does not walk around a deny nor stretch an allow (#4)', async () => {
    await mkdir(join(box.cwd, 'docs'));
    await mkdir(join(box.cwd, '.github', 'workflows'), { recursive: true });
    await symlink('../.github', join(box.cwd, 'docs', 'gh'));
    box.env.BIRDIE_BUNDLED_SKILLS = BUNDLED_SKILLS;
    await cli(['config', 'add', 'permissions.deny', 'write_file(path=.github/**)']);
    const write = (path: string) => ({ name: 'write_file', args: { path, content: 'evil\n' } });
    const denied = await run(
      [write('.github/workflows/direct.yml'), write('docs/gh/workflows/ci.yml')],
      ['--approval', 'never', '--enable', 'filesystem'],
      [],
    );
    const ends = denied.events.filter((e) => e.type === 'tool-end');
    expect(ends).toHaveLength(2);
    for (const end of ends) expect(end).toMatchObject({ ok: false, outcome: 'refused' });
    expect(existsSync(join(box.cwd, '.github', 'workflows', 'ci.yml'))).toBe(false);

    await cli(['config', 'remove', 'permissions.deny', 'write_file(path=.github/**)']);
    await cli(['config', 'add', 'permissions.allow', 'write_file(path=docs/**)']);
    await cli(['config', 'add', 'permissions.ask', 'write_file(path=.github/**)']);
    const asked = await run(
      [write('docs/gh/workflows/ci.yml'), write('docs/plain.md')],
      ['--enable', 'filesystem'],
      [],
    );
    expect(asked.events).toContainEqual(
      expect.objectContaining({ type: 'tool-rule', effect: 'ask', pattern: 'write_file(path=.github/**)' }),
    );
    expect(asked.events).toContainEqual(
      expect.objectContaining({ type: 'tool-rule', effect: 'allow', pattern: 'write_file(path=docs/**)' }),
    );
    expect(existsSync(join(box.cwd, '.github', 'workflows', 'ci.yml'))).toBe(false);
    expect(existsSync(join(box.cwd, 'docs', 'plain.md'))).toBe(true);
  });
});

// Deny rules under `--yes` against a program named by a brace, a glob, a substitution, `coproc` or a git alias
// (exploratory report, stop 68: each of these removed the file or pushed), how a turn whose calls a deny rule refused
// ends (it ended `ok`, exit 0), and a project settings file with a bad entry.
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
    const result = await run(commands.map(bash), ['--yes']);
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
    const result = await run([bash('/bin/ech? victim')], ['--yes']);
    expect(result.events.filter((e) => e.type === 'tool-rule' && e.effect === 'deny')).toEqual([]);
    expect(result.events.find((e) => e.type === 'tool-end')).toMatchObject({ ok: true });
    expect(result.events.find((e) => e.type === 'done')).toMatchObject({ status: 'ok' });
    expect(result.code).toBe(0);
  });

  it('a turn whose only call a deny rule refused ends rejected, exit 1, and the run log says so', async () => {
    await writeFile(join(box.cwd, 'victim'), 'x');
    await cli(['config', 'add', 'permissions.deny', 'run_command(rm *)']);
    const result = await run([bash('rm victim')], []);
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
    const result = await run([bash('rm victim')], ['--yes']);
    expect(result.events.find((e) => e.type === 'tool-rule')).toMatchObject({ effect: 'deny' });
    expect(existsSync(join(box.cwd, 'victim'))).toBe(true);
    expect(result.stderr).toContain('run_command(touch');
    expect(result.stderr).toMatch(/the others apply/);
  });

  it('takes a deny rule written as a string, not a list', async () => {
    await writeFile(join(box.cwd, 'victim'), 'x');
    await project({ deny: 'run_command(rm *)' });
    const result = await run([bash('rm victim')], ['--yes']);
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
    const result = await run([bash('rm victim')], ['--yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('.birdie/settings.json');
    expect(result.stderr).toMatch(/deny rules/);
    expect(existsSync(join(box.cwd, 'victim'))).toBe(true);
  });
});
