import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox, scripted } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

// Scale report 7: `skills check` passed ("0 errors", exit 0) over folders meant as skills that never load: a skill
// file spelt `Skill.md`, a link whose target is gone, a `SKILL.md` that is a folder.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });
const skill = (name: string) => `---\nname: ${name}\ndescription: fine\n---\nbody\n`;

describe('skills check and folders that will never load', { timeout: 60_000 }, () => {
  it('names each of them in a skills folder; a SKILL.md that is a folder fails the check', async () => {
    const lib = join(box.cwd, 'lib');
    await mkdir(join(lib, 'ok'), { recursive: true });
    await writeFile(join(lib, 'ok', 'SKILL.md'), skill('ok'));
    await mkdir(join(lib, 'misnamed'), { recursive: true });
    await writeFile(join(lib, 'misnamed', 'Skill.md'), skill('misnamed'));
    await mkdir(join(lib, 'dirfile', 'SKILL.md'), { recursive: true });
    await symlink('/nonexistent/skill', join(lib, 'dangling'));
    const check = await cli(['skills', 'check', 'lib']);
    expect(check.stdout).toContain('lib/dangling:1:1  warning  a link to nothing');
    expect(check.stdout).toContain('birdie:broken-link');
    expect(check.stdout).toContain('lib/dirfile/SKILL.md:1:1  error  SKILL.md is a folder, not a file');
    expect(check.stdout).toContain('lib/misnamed/Skill.md:1:1  warning  Skill.md is not read');
    expect(check.stdout).toContain('1 skill loaded: 1 error, 2 warnings');
    expect(check.code).toBe(1);
  });

  it("says so when the one skill's folder checked has its file misnamed", async () => {
    await mkdir(join(box.cwd, 'misnamed'), { recursive: true });
    await writeFile(join(box.cwd, 'misnamed', 'Skill.md'), skill('misnamed'));
    const check = await cli(['skills', 'check', 'misnamed']);
    expect(check.stdout).toContain('misnamed/Skill.md:1:1  warning  Skill.md is not read');
    expect(check.stdout).toContain('0 skills loaded: 0 errors, 1 warning');
  });

  // Reported by a skill author: skills one folder too deep (`nested/group/mytools/SKILL.md`) gave "0 skills loaded: 0
  // errors", exit 0, and no hint.
  it('names a skill one folder too deep, and the folder to give instead', async () => {
    const nested = join(box.cwd, 'nested');
    await mkdir(join(nested, 'group', 'mytools'), { recursive: true });
    await writeFile(join(nested, 'group', 'mytools', 'SKILL.md'), skill('mytools'));
    // A skill's own sub-folder holding a SKILL.md (a template it ships) is the skill's business: not named.
    await mkdir(join(nested, 'real', 'templates', 'starter'), { recursive: true });
    await writeFile(join(nested, 'real', 'SKILL.md'), skill('real'));
    await writeFile(join(nested, 'real', 'templates', 'starter', 'SKILL.md'), skill('starter'));
    const check = await cli(['skills', 'check', 'nested']);
    expect(check.stdout).toContain(
      'nested/group/mytools/SKILL.md:1:1  warning  this skill is one folder too deep: a skills folder loads the skills of its own sub-folders, so it is not loaded (give group as the skills folder, or move mytools up one level)',
    );
    expect(check.stdout).toContain('birdie:nested-skill');
    expect(check.stdout).not.toContain('starter');
    expect(check.stdout).toContain('1 skill loaded: 0 errors, 1 warning');
  });
});
