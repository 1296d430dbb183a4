import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

// Report: a user copied a skill folder before editing it (`cp -r notes notes-old`, both still `name: notes`).
// `birdie skills check ~/.birdie/skills` said "2 skills loaded" and nothing about the clash, while only one loads; and
// the one that loaded was the backup (`notes-old` sorts before `notes`), so the edits to `notes` were ignored.

let box: Sandbox;
let skills: string;
beforeEach(async () => {
  box = await sandbox();
  skills = join(box.home, 'skills');
  for (const [folder, description] of [
    ['notes', 'The notes skill being edited.'],
    ['notes-old', 'The backup copy.'],
  ] as const) {
    await mkdir(join(skills, folder), { recursive: true });
    await writeFile(
      join(skills, folder, 'SKILL.md'),
      `---\nname: notes\ndescription: ${description}\n---\nBody.\n`,
    );
  }
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });

describe('two skills of one name in one folder', () => {
  it('skills check DIR reports the clash and counts one skill, as loading it would', async () => {
    const result = await cli(['skills', 'check', skills]);
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).toContain(
      `Skill \`notes\` is ignored: ${join(skills, 'notes', 'SKILL.md')} in the same folder defines it too, and its folder is named after it`,
    );
    expect(result.stdout + result.stderr).toContain('registry:duplicate-skill-name');
    expect(result.stdout + result.stderr).toMatch(/\b1 skill loaded\b/);
  });

  it('the copy in the folder named after the skill is the one that loads, though the other folder sorts first', async () => {
    const check = await cli(['skills', 'check']);
    expect(check.stdout + check.stderr).toContain(
      `Skill \`notes\` is ignored: ${join(skills, 'notes', 'SKILL.md')} in the same folder defines it too, and its folder is named after it`,
    );
    const listed = (await cli(['skills', 'list', '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; dir: string });
    expect(listed.filter((s) => s.name === 'notes').map((s) => s.dir)).toEqual([join(skills, 'notes')]);
  });
});
