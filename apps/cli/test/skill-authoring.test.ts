import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox, scripted } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

// What a user writing skills meets: a tool refused at load, a skills folder that is not there (or is one skill's
// folder), the hints of `skills new --dir`, a new skill named like a loaded one.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });

async function writeSkillFile(root: string, folder: string, text: string): Promise<string> {
  await mkdir(join(root, folder), { recursive: true });
  const file = join(root, folder, 'SKILL.md');
  await writeFile(file, text);
  return file;
}

/** The error and warning lines `skills check` prints for these folders. */
async function checkLines(...dirs: string[]): Promise<string[]> {
  const check = await cli(['skills', 'check', ...dirs]);
  return check.stdout.split('\n').filter((line) => /^\S+:\d+:\d+ {2}(error|warning) {2}/.test(line));
}

const GREET_TYPO = `---
name: mytool
description: Demo of a tool refused at load.
---

## Tools

### greet
description: Greet someone.
entrypoint: bash:echo hello {nmae}
schema:
  type: object
  properties:
    name: {type: string}
`;

const BAD_TIMEOUT = `---
name: slowpoke
description: A skill whose tool has a timeout that is no number of seconds.
---

## Tools

### wait_a_bit
description: Waits.
entrypoint: bash:sleep 1
timeout: soon
`;

describe('birdie tool NAME for a tool refused at load', { timeout: 60_000 }, () => {
  it('says it was refused and shows why (file:line), not "unknown tool"', async () => {
    await writeSkillFile(join(box.cwd, 'skills'), 'mytool', GREET_TYPO);
    const result = await cli(['tool', 'greet', '--skills-dir', 'skills', '--args', '{"name":"bob"}']);
    expect(result.code).toBe(2);
    const [why] = await checkLines('skills');
    expect(why).toMatch(
      /^skills\/mytool\/SKILL\.md:10:\d+ {2}error {2}Tool `greet` is refused: .*unknown-placeholder$/,
    );
    expect(result.stderr).toBe(
      `${why}\nbirdie: tool "greet" was refused when its skill (${join(box.cwd, 'skills/mytool/SKILL.md')}) was loaded; fix the error \`birdie skills check\` shows for it\n`,
    );
  });

  it('says so for a tool of a skill refused whole (a parse error), with that skill’s errors only', async () => {
    await writeSkillFile(join(box.cwd, 'skills'), 'slowpoke', BAD_TIMEOUT);
    await writeSkillFile(join(box.cwd, 'skills'), 'mytool', GREET_TYPO);
    const result = await cli(['tool', 'wait_a_bit', '--skills-dir', 'skills']);
    expect(result.code).toBe(2);
    const lines = (await checkLines('skills')).filter((line) => line.startsWith('skills/slowpoke/'));
    expect(lines.length).toBeGreaterThan(0);
    expect(result.stderr).toBe(
      `${lines.join('\n')}\nbirdie: tool "wait_a_bit" was refused when its skill (${join(box.cwd, 'skills/slowpoke/SKILL.md')}) was loaded; fix the error${lines.length === 1 ? '' : 's'} \`birdie skills check\` shows for it\n`,
    );
  });

  it('keeps "unknown tool" and the did-you-mean for a name no skill declares', async () => {
    await writeSkillFile(join(box.cwd, 'skills'), 'mytool', GREET_TYPO);
    const result = await cli(['tool', 'greeet', '--skills-dir', 'skills']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('birdie: unknown tool "greeet".');
    expect(result.stderr).not.toContain('refused');
  });
});

describe('a skills or agents folder the user names that cannot be loaded', { timeout: 60_000 }, () => {
  const missing = () =>
    `skils:1:1  warning  ${join(box.cwd, 'skils')} does not exist; no skills are loaded from it  registry:dir-not-found`;

  it('is warned about by skills list, run and tool when it does not exist', async () => {
    const list = await cli(['skills', 'list', '--skills-dir', './skils']);
    expect(list.code).toBe(0);
    expect(list.stderr).toBe(`${missing()}\n`);
    const run = await cli(['run', 'count these', '--skills-dir', './skils']);
    expect(run.code).toBe(0);
    expect(run.stderr.split('\n')[0]).toBe(missing());
    const tool = await cli(['tool', 'anything', '--skills-dir', './skils']);
    expect(tool.code).toBe(2);
    expect(tool.stderr.split('\n')[0]).toBe(missing());
    expect(tool.stderr).toContain('birdie: unknown tool "anything".');
    const agents = await cli(['agents', 'list', '--agents-dir', './agentz']);
    expect(agents.stderr).toContain(
      `${join(box.cwd, 'agentz')} does not exist; no agents are loaded from it  registry:dir-not-found`,
    );
  });

  it('the default folders that do not exist stay silent', async () => {
    const list = await cli(['skills', 'list']);
    expect(list).toMatchObject({ code: 0, stderr: '' });
  });

  it('is warned about when it is one skill’s folder, naming the parent to pass instead', async () => {
    const skills = join(box.cwd, 'sk');
    const file = await writeSkillFile(
      skills,
      'echo-tool',
      '---\nname: echo-tool\ndescription: Echo.\n---\n\n## Tools\n\n### echo_it\ndescription: Echo.\nentrypoint: bash:echo {text}\nschema:\n  type: object\n  properties:\n    text: {type: string}\n',
    );
    const warning = `sk/echo-tool/SKILL.md:1:1  warning  ${join(skills, 'echo-tool')} is one skill's folder (it holds SKILL.md), not a folder of skills: its skill is not loaded; name its parent folder ${skills} instead  registry:dir-holds-skill`;
    const tool = await cli(['tool', 'echo_it', '--skills-dir', 'sk/echo-tool', '--args', '{"text":"x"}']);
    expect(tool.code).toBe(2);
    expect(tool.stderr.split('\n')[0]).toBe(warning);
    expect((await stat(file)).isFile()).toBe(true);
    const parent = await cli(['tool', 'echo_it', '--skills-dir', 'sk', '--args', '{"text":"x"}']);
    expect(parent).toMatchObject({ code: 0, stdout: 'x\n', stderr: '' });
  });
});

describe('birdie skills new', { timeout: 60_000 }, () => {
  it('with --dir outside the loaded folders, prints hints that work as printed', async () => {
    const created = await cli(['skills', 'new', 'hello-dir', '--dir', 'myskills']);
    expect(created.code).toBe(0);
    const root = join(box.cwd, 'myskills');
    const tool = created.stdout.match(/`birdie (tool hello_dir_echo [^`]*)`/)?.[1];
    expect(tool).toBe(`tool hello_dir_echo --skills-dir ${root} --args '{"message":"hi"}'`);
    expect(
      await cli(['tool', 'hello_dir_echo', '--skills-dir', root, '--args', '{"message":"hi"}']),
    ).toMatchObject({ code: 0, stdout: 'hi\n' });
    const run = created.stdout.match(/`birdie (run [^`]*)`/)?.[1];
    expect(run).toBe(`run --skills-dir ${root} --enable hello-dir …`);
    expect((await cli(['run', 'count these', '--skills-dir', root, '--enable', 'hello-dir'])).code).toBe(0);
  });

  // Reported: a 63-character name (valid: at most 64) made a skill whose example tool `<name>_echo` (68 characters)
  // broke the 64-character tool-name rule, so the skill just made failed its own `skills check`.
  it('with the longest names, makes a skill that passes its check, and a tool the hint names', async () => {
    const name = `${'abcdefghi-'.repeat(6)}abc`;
    expect(name).toHaveLength(63);
    const created = await cli(['skills', 'new', name, '--dir', 'long']);
    expect(created.code, created.stderr).toBe(0);
    const root = join(box.cwd, 'long');
    expect(await cli(['skills', 'check', join(root, name)])).toMatchObject({ code: 0 });
    const tool = created.stdout.match(/`birdie tool (\S+) /)?.[1];
    expect(tool!.length).toBeLessThanOrEqual(64);
    expect(tool).toMatch(/_echo$/);
    expect(await cli(['tool', tool!, '--skills-dir', root, '--args', '{"message":"hi"}'])).toMatchObject({
      code: 0,
      stdout: 'hi\n',
    });
  });

  it('in the user folder, prints the hints without --skills-dir', async () => {
    const created = await cli(['skills', 'new', 'git-helper']);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`\`birdie tool git_helper_echo --args '{"message":"hi"}'\``);
    expect(created.stdout).not.toContain('--skills-dir');
  });

  it('refuses a name a loaded skill has (a bundled one), saying where it is', async () => {
    const bundled = join(box.dir.path, 'bundled');
    const file = await writeSkillFile(
      bundled,
      'filesystem',
      '---\nname: filesystem\ndescription: Files.\n---\n\nRead files.\n',
    );
    const created = await cli(['skills', 'new', 'filesystem']);
    expect(created.code).toBe(2);
    expect(created.stderr).toBe(
      `birdie: a skill named "filesystem" already exists (bundled: ${file}); pick another name\n`,
    );
    expect(await stat(join(box.home, 'skills', 'filesystem')).catch(() => undefined)).toBeUndefined();
  });
});

describe('birdie agents new', { timeout: 60_000 }, () => {
  it('with --dir outside the loaded folders, hints agents list with --agents-dir, which lists it', async () => {
    const created = await cli(['agents', 'new', 'helper', '--dir', 'team-agents']);
    expect(created.code).toBe(0);
    const folder = join(box.cwd, 'team-agents');
    const list = created.stdout.match(/`birdie (agents list[^`]*)`/)?.[1];
    expect(list).toBe(`agents list --agents-dir ${folder}`);
    expect((await cli(['agents', 'list', '--agents-dir', folder])).stdout).toMatch(/^helper\s/m);
  });

  it('refuses a name a loaded agent has (a bundled one), saying where it is', async () => {
    const bundled = join(box.dir.path, 'bundled-agents');
    const file = join(bundled, 'researcher.md');
    await writeFile(file, '---\nname: researcher\ndescription: Finds things.\n---\n\nYou research.\n');
    const created = await cli(['agents', 'new', 'researcher']);
    expect(created.code).toBe(2);
    expect(created.stderr).toBe(
      `birdie: an agent named "researcher" already exists (bundled: ${file}); pick another name\n`,
    );
    expect(await stat(join(box.home, 'agents', 'researcher.md')).catch(() => undefined)).toBeUndefined();
  });
});
