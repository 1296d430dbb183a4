import { realpathSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitsOf } from '../src/limits.js';
import { nodeInstallation } from '../src/node-child.js';
import { runProcess } from '../src/process.js';
import { tempDir } from './helpers.js';
import { requireBubblewrap } from './sandbox-call.js';

/**
 * A program installed under the user's home (Node.js from nvm, a python from pyenv) is hidden by the sandbox with the
 * rest of the home; the folders a call names as its program's (`programDirs`) are shown read-only, so a sandboxed
 * `node:` tool runs with the Node.js that runs birdie wherever it is installed.
 */

let home: string;
let work: string;

beforeAll(async () => {
  home = await mkdtemp(join('/var/tmp', 'birdie-program-home-'));
  work = await tempDir('birdie-program-work-');
  await mkdir(join(home, '.nvm', 'bin'), { recursive: true });
  const program = join(home, '.nvm', 'bin', 'prog');
  await writeFile(program, '#!/bin/sh\necho "ran from the home"\n');
  await chmod(program, 0o755);
  await writeFile(join(home, 'secret.txt'), 'the secret\n');
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const run = (command: string, args: string[], programDirs?: string[]) =>
  runProcess(
    {
      command,
      args,
      cwd: work,
      env: { PATH: '/usr/bin:/bin', HOME: home },
      mergeStderr: true,
      label: 'program-dirs test',
      sandbox: { network: false, ...(programDirs ? { programDirs } : {}) },
    },
    limitsOf({}),
  );

describe('programDirs: the program of a sandboxed call, shown where it is installed', {
  timeout: 60_000,
}, () => {
  it('a program under the hidden home runs when its folder is named, and nothing else of the home shows', async () => {
    await requireBubblewrap();
    const program = join(home, '.nvm', 'bin', 'prog');
    const hidden = await run(program, []);
    expect(hidden.exitCode).not.toBe(0);
    const shown = await run(program, [], [join(home, '.nvm')]);
    expect(shown).toMatchObject({ exitCode: 0, output: 'ran from the home\n' });
    const rest = await run('/bin/cat', [join(home, 'secret.txt')], [join(home, '.nvm')]);
    expect(rest.exitCode).not.toBe(0);
    expect(rest.output).not.toContain('the secret');
  });

  it('nodeInstallation() is the prefix of the running Node.js: its bin folder holds the real binary', () => {
    const binary = realpathSync(process.execPath);
    expect(join(nodeInstallation(), 'bin', basename(binary))).toBe(binary);
  });
});
