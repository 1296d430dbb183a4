import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

// Issue 28, item 3: a bash: command that can run a value as code is reported by `skills check`, not silent.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const tool = (name: string, entrypoint: string, extra = '') => `
### ${name}
description: ${name}
entrypoint: ${entrypoint}
${extra}schema:
  type: object
  properties:
    n: { type: string }
`;

describe('birdie skills check: commands that run their arguments as code', () => {
  it('warns at the option, naming the program and the option and how to turn the question off', async () => {
    const dir = join(box.cwd, 'skills', 'runner');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'SKILL.md'),
      `---\nname: runner\ndescription: Runs things\n---\n\n## Tools\n${tool('each', "bash:find . -name {n} -exec sh -c 'echo {n}' \\;")}${tool('plain', 'bash:ls -la -- {n}')}`,
    );
    const result = await runCli(['skills', 'check', 'skills'], { env: box.env, cwd: box.cwd });
    expect(result.code, result.stdout).toBe(0);
    // line 10 is the `each` entrypoint; `-c` starts at column 44
    expect(result.stdout).toMatch(
      /runner\/SKILL\.md:10:44 {2}warning {2}Tool `each` runs a value as code: .*`sh -c`.*`approval: never`.* {2}registry:code-taking-command/,
    );
    expect(result.stdout).toContain('1 skill loaded: 0 errors, 1 warning');
  });
});
