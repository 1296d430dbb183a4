import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });

it('keeps parsed skills in the cache folder between runs, and an edited skill is read afresh', async () => {
  const skills = join(box.dir.path, 'skills');
  await cp(join(TEST_SKILLS, 'echoer'), join(skills, 'echoer'), { recursive: true });
  const listed = async () => {
    const result = await cli(['skills', 'list', '--json', '--skills-dir', skills]);
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout.trim()) as { name: string; tools: string[] };
  };
  expect(await listed()).toMatchObject({ name: 'echoer', tools: ['shout'] });
  const cache = JSON.parse(await readFile(join(box.env.HOME!, '.cache', 'birdie', 'skills.json'), 'utf8'));
  expect(Object.values(cache.skills).map((s) => (s as { name: string }).name)).toEqual(['echoer']);

  const file = join(skills, 'echoer', 'SKILL.md');
  const text = await readFile(file, 'utf8');
  await writeFile(file, text.replace('### shout', '### yell'));
  expect(await listed()).toMatchObject({ name: 'echoer', tools: ['yell'] });
});
