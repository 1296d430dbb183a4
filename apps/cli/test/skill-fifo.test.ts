import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BirdieProcess, startBirdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox, scripted } from './helpers/env.js';

// A SKILL.md that is a named pipe among a user's skills (scale report 5): every command reports it as unreadable and
// goes on; `birdie tool` with a name no skill loads read it again to say why, and blocked in open() for ever.

let box: Sandbox;
let running: BirdieProcess | undefined;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
});
afterEach(async () => {
  running?.kill('SIGKILL');
  running = undefined;
  await box.cleanup();
});

const GOOD = `---
name: good
description: A good skill.
---

## Tools

### say_hello
description: Say hello.
entrypoint: bash:echo hello {who}
schema:
  type: object
  properties:
    who: {type: string}
  required: [who]
`;

describe('a SKILL.md that is a named pipe', { timeout: 60_000 }, () => {
  it('birdie tool answers a typo and an unknown name instead of blocking on the pipe', async () => {
    const skills = join(box.cwd, 'skills');
    await mkdir(join(skills, 'good'), { recursive: true });
    await mkdir(join(skills, 'pipe'), { recursive: true });
    await writeFile(join(skills, 'good', 'SKILL.md'), GOOD);
    execFileSync('mkfifo', [join(skills, 'pipe', 'SKILL.md')]);
    for (const [name, answer] of [
      ['say_helo', 'birdie: unknown tool "say_helo". Did you mean "say_hello"?'],
      ['no_such_tool', 'birdie: unknown tool "no_such_tool"'],
    ] as const) {
      running = startBirdie(['tool', name, '--args', '{"who":"x"}', '--skills-dir', skills], {
        env: box.env,
        cwd: box.cwd,
      });
      const done = await running.exited;
      expect(done.code).toBe(2);
      expect(done.stderr).toContain(answer);
    }
  });

  it('a cloned project whose command and AGENTS.md files are pipes does not hang birdie run', async () => {
    await mkdir(join(box.cwd, '.birdie', 'commands'), { recursive: true });
    for (const file of ['.birdie/commands/go.md', 'AGENTS.md']) execFileSync('mkfifo', [join(box.cwd, file)]);
    running = startBirdie(['run', 'hi'], { env: box.env, cwd: box.cwd });
    const done = await running.exited;
    expect(done.code).toBe(0);
    expect(done.stderr).toContain('continue with --session-id');
  });

  it('a settings file that is a pipe does not hang birdie run: its rules cannot be read, so it stops (exit 2)', async () => {
    await mkdir(join(box.cwd, '.birdie'), { recursive: true });
    const file = join(box.cwd, '.birdie', 'settings.json');
    execFileSync('mkfifo', [file]);
    running = startBirdie(['run', 'hi'], { env: box.env, cwd: box.cwd });
    const done = await running.exited;
    expect(done.code).toBe(2);
    expect(done.stderr).toContain(
      `cannot read the project's approval rules in ${file} (it is not a regular file (a pipe, a socket or a device))`,
    );
  });
});
