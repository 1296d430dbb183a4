import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox, scripted, TEST_SKILLS } from './helpers/env.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
});
afterEach(async () => {
  await box.cleanup();
});

describe("an untrusted folder's settings file", () => {
  it('the line about what was skipped says its deny rules apply, as they do', async () => {
    await mkdir(join(box.cwd, '.birdie'));
    await writeFile(
      join(box.cwd, '.birdie', 'settings.json'),
      JSON.stringify({ permissions: { deny: ['run_command(touch *)'], allow: ['run_command(ls *)'] } }),
    );
    const run = await birdie(
      ['run', 'touch it', '--approval', 'never', '--json', '--skills-dir', TEST_SKILLS],
      { env: box.env, cwd: box.cwd },
    );
    const events = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'tool-rule', effect: 'deny', pattern: 'run_command(touch *)' }),
    );
    expect(existsSync(join(box.cwd, 'marker.txt'))).toBe(false);
    const line = run.stderr.split('\n').find((l) => l.includes('untrusted folder'));
    expect(line).toContain('ask and deny rules apply');
    expect(line).toContain('allow rules');
  });
});
