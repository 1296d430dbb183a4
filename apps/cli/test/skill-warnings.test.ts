import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox, scripted, TEST_SKILLS } from './helpers/env.js';
import { Terminal } from './helpers/pty.js';
import { runCli } from './helpers/run-in-process.js';

let box: Sandbox;
let terminal: Terminal | undefined;
let notAFolder: string;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
  notAFolder = join(box.cwd, 'not-a-folder');
  await writeFile(notAFolder, 'a file\n');
});
afterEach(async () => {
  terminal?.kill();
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });
/** The path is shown relative to the working folder, the message names it in full. */
const warning = () =>
  `not-a-folder:1:1  warning  ${notAFolder} is not a folder; it is skipped  registry:dir-not-directory`;

describe('skill folder problems are shown where skills are used', { timeout: 60_000 }, () => {
  it('skills list prints the warnings on stderr in the skills check format and still lists', async () => {
    const result = await cli(['skills', 'list', '--skills-dir', notAFolder, '--skills-dir', TEST_SKILLS]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`${warning()}\n`);
    expect(result.stdout).toMatch(/^NAME\s+KIND/);
    const json = await cli(['skills', 'list', '--json', '--skills-dir', notAFolder]);
    expect(json.stderr).toBe(`${warning()}\n`);
    expect(json.stdout).toBe('');
  });

  it('skills list prints errors too, and no info messages', async () => {
    const bad = join(box.cwd, 'bad');
    await mkdir(join(bad, 'broken'), { recursive: true });
    await writeFile(join(bad, 'broken', 'SKILL.md'), '---\nname: broken\n---\n');
    const check = await cli(['skills', 'check', '--skills-dir', bad]);
    const list = await cli(['skills', 'list', '--skills-dir', bad]);
    const diagnostics = check.stdout
      .split('\n')
      .filter((line) => /^\S+:\d+:\d+ {2}(error|warning) {2}/.test(line));
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(list.stderr.trimEnd().split('\n')).toEqual(diagnostics);
  });

  it('birdie run prints them once before the turn', async () => {
    const result = await cli(['run', 'count these', '--skills-dir', notAFolder, '--skills-dir', TEST_SKILLS]);
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n')[0]).toBe(warning());
    expect(result.stderr.split(warning()).length).toBe(2);
  });

  it('the REPL prints them once at start-up, not per turn', async () => {
    const t = new Terminal(['--skills-dir', notAFolder, '--skills-dir', TEST_SKILLS], {
      env: { ...box.env, ...scripted('repl.json') },
      cwd: box.cwd,
    });
    terminal = t;
    await t.expect('/help for commands');
    await t.submit('/skill list');
    await t.expect('echoer');
    await t.submit('/info');
    await t.expect('provider');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
    expect(t.text.split('is not a folder; it is skipped').length).toBe(2);
    expect(t.text).toContain(warning());
  });
});
