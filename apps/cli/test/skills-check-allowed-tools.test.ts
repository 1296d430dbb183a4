import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

// Issue 29: a skill's `allowed-tools` entry that would allow any command (`Bash`, `Bash(*)`) is ignored with a
// warning, and `skills check` is where the author sees it.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

describe('birdie skills check: allowed-tools', () => {
  it('warns on each entry it ignores, at the allowed-tools line, and says nothing of the ones it maps', async () => {
    const dir = join(box.cwd, 'skills', 'committer');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'SKILL.md'),
      '---\nname: committer\ndescription: Commits work\nallowed-tools: Bash(git add:*) Read Bash Bash(*)\n---\n\nCommit with care.\n',
    );
    const result = await runCli(['skills', 'check', 'skills'], { env: box.env, cwd: box.cwd });
    expect(result.code, result.stdout).toBe(0);
    const warnings = result.stdout.split('\n').filter((line) => line.includes('allowed-tools-ignored'));
    expect(warnings).toHaveLength(2);
    for (const line of warnings)
      expect(line).toMatch(/committer\/SKILL\.md:4:1 {2}warning {2}.*allowed-tools/);
    expect(warnings[0]).toContain('`Bash`');
    expect(warnings[1]).toContain('`Bash(*)`');
    expect(result.stdout).toContain('1 skill loaded: 0 errors, 2 warnings');
  });
});
