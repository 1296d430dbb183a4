import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

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

/** `birdie run --json` with a scripted model that runs `command` with the raw-shell fixture's tool. */
async function run(command: string, flags: string[] = []) {
  await writeFile(
    script,
    JSON.stringify({
      replies: [{ tool_calls: [{ name: 'run_command', args: { command } }] }, { text: 'Done.' }],
    }),
  );
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
    .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
  return { ...result, events };
}

describe('approval rules in the settings', { timeout: 60_000 }, () => {
  it('config add and remove take a pattern whole (blanks, commas), check it, and list it with its file', async () => {
    const file = join(box.home, 'config.json');
    const added = await cli(['config', 'add', 'permissions.allow', 'run_command(touch *)']);
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toContain('permissions.allow: added run_command(touch *)');
    expect(await cli(['config', 'add', 'permissions.deny', 'write_file(path=a/*,mode=x)'])).toMatchObject({
      code: 0,
    });
    expect(JSON.parse(await readFile(file, 'utf8')).settings.permissions).toEqual({
      allow: ['run_command(touch *)'],
      deny: ['write_file(path=a/*,mode=x)'],
    });
    const list = (await cli(['config', 'list'])).stdout;
    expect(list).toMatch(new RegExp(`permissions\\.allow\\s+run_command\\(touch \\*\\)\\s+file ${file}`));

    const before = await readFile(file, 'utf8');
    const bad = await cli(['config', 'add', 'permissions.allow', 'run_command(touch']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"run_command(touch" is not an approval pattern');
    expect(await readFile(file, 'utf8')).toBe(before);

    expect(await cli(['config', 'remove', 'permissions.allow', 'run_command(touch *)'])).toMatchObject({
      code: 0,
    });
    const missing = await cli(['config', 'remove', 'permissions.allow', 'run_command(touch *)']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('has no entry "run_command(touch *)"');
  });

  it('a bad pattern written by hand is a usage error at its place in the file', async () => {
    const file = join(box.home, 'config.json');
    await writeFile(
      file,
      JSON.stringify({ settings: { permissions: { deny: ['ok', 'run_bash(a'] } } }, null, 2),
    );
    const result = await run('touch x');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `Invalid config in file ${file} at line \\d+, column \\d+: settings\\.permissions\\.deny\\[1\\] "run_bash\\(a" is not an approval pattern`,
      ),
    );
  });

  it('a user allow rule runs a command without asking, a deny refuses it; --json says which rule of which file', async () => {
    const file = join(box.home, 'config.json');
    await cli(['config', 'add', 'permissions.allow', 'run_command(touch *)']);
    await cli(['config', 'add', 'permissions.deny', 'run_command(touch secret*)']);
    const allowed = await run('touch fine.txt');
    expect(allowed.code).toBe(0);
    expect(existsSync(join(box.cwd, 'fine.txt'))).toBe(true);
    expect(allowed.events).toContainEqual({
      type: 'tool-rule',
      id: expect.any(String),
      name: 'run_command',
      effect: 'allow',
      pattern: 'run_command(touch *)',
      source: { kind: 'user', name: file },
    });
    const denied = await run('touch secret.txt');
    expect(existsSync(join(box.cwd, 'secret.txt'))).toBe(false);
    expect(denied.events).toContainEqual(
      expect.objectContaining({ type: 'tool-rule', effect: 'deny', pattern: 'run_command(touch secret*)' }),
    );
    // Not covered by the allow rule: birdie run cannot ask, so it is refused.
    const other = await run('rm -f fine.txt');
    expect(other.events.map((e) => e.type)).toContain('approval-refused');
    expect(existsSync(join(box.cwd, 'fine.txt'))).toBe(true);
  });

  it('an ask rule refused under --approval never says the rule asks in every mode, not to rerun with --approval never', async () => {
    const file = join(box.home, 'config.json');
    await cli(['config', 'add', 'permissions.ask', 'run_command(ls)']);
    const asked = await run('ls', ['--approval', 'never']);
    expect(asked.code).toBe(1);
    const refused = asked.events.find((e) => e.type === 'approval-refused');
    expect(refused?.reason).toBe(
      `birdie run does not ask for approval: refused. The ask rule \`run_command(ls)\` (user ${file}) asks before this call in every approval mode; rerun with --yes to approve it.`,
    );
    const told = asked.events.find((e) => e.type === 'tool-end');
    expect(told?.output).not.toContain('--approval never');
    // Without --json, the same words on stderr; the run log keeps them.
    const text = await cli([
      'run',
      '--skills-dir',
      TEST_SKILLS,
      '--enable',
      'raw-shell',
      '--approval',
      'never',
      'go',
    ]);
    expect(text.stderr).toContain('The ask rule `run_command(ls)`');
    expect(text.stderr).not.toContain('--approval never');
    const log = await cli(['logs', '--json']);
    expect(log.stdout).toContain('The ask rule `run_command(ls)`');
    // A call that asks for the mode's sake still names the mode that would let it run.
    const plain = await run('touch x');
    expect(plain.events.find((e) => e.type === 'approval-refused')?.reason).toContain('or --approval never');
  });

  // Reported: a turn whose call a deny rule refused was logged `rejected` with nothing in its TOOLS / ERROR column.
  it('the run log says which deny rule refused a call of a rejected turn', async () => {
    const file = join(box.home, 'config.json');
    await cli(['config', 'add', 'permissions.deny', 'run_command(touch secret*)']);
    const denied = await run('touch secret.txt');
    expect(denied.code).toBe(1);
    const [entry] = (await cli(['logs', '--json'])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { status: string; error?: string });
    expect(entry).toMatchObject({
      status: 'rejected',
      error: `refused by the deny rule \`run_command(touch secret*)\` (user ${file}): run_command`,
    });
    expect((await cli(['logs'])).stdout).toContain('refused by the deny rule `run_command(touch secret*)`');
  });

  it("a project's rules: deny and ask apply at once, allow only once the folder is trusted", async () => {
    await mkdir(join(box.cwd, '.birdie'));
    await writeFile(
      join(box.cwd, '.birdie', 'settings.json'),
      JSON.stringify({ permissions: { allow: ['run_command(touch *)'], deny: ['run_command(rm *)'] } }),
    );
    const untrusted = await run('touch project.txt');
    expect(existsSync(join(box.cwd, 'project.txt'))).toBe(false);
    expect(untrusted.events.map((e) => e.type)).toContain('approval-refused');
    expect(untrusted.stderr).toContain('skipped the settings file of the untrusted folder');
    const denied = await run('rm -f anything');
    expect(denied.events).toContainEqual(
      expect.objectContaining({
        type: 'tool-rule',
        effect: 'deny',
        pattern: 'run_command(rm *)',
        source: { kind: 'project', name: join(box.cwd, '.birdie', 'settings.json') },
      }),
    );
    expect(await cli(['trust', box.cwd])).toMatchObject({ code: 0 });
    const trusted = await run('touch project.txt');
    expect(trusted.code).toBe(0);
    expect(existsSync(join(box.cwd, 'project.txt'))).toBe(true);
  });
});
