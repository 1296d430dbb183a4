import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { Terminal } from './helpers/pty.js';

const exec = promisify(execFile);
const REPO_ROOT = join(CLI_ROOT, '..', '..');
// Exactly what the root README tells people to set: a path relative to the repository root.
const DEMO = { LLM_PROVIDER_CONFIG: '{"vendor":"scripted","script":"apps/cli/examples/hello.json"}' };

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(DEMO);
  // The real bundled skills, found from the compiled bin as in a checkout.
  delete box.env.BIRDIE_BUNDLED_SKILLS;
});
afterEach(async () => {
  await box.cleanup();
});

/** The compiled CLI from the repository root, as `pnpm birdie …` runs it. */
async function birdie(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], { env: box.env, cwd: REPO_ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the offline demo of the root README (apps/cli/examples/hello.json)', { timeout: 60_000 }, () => {
  it('lists the folder with the filesystem skill, then answers', async () => {
    const result = await birdie(['run', '--enable', 'filesystem', 'what files are in this folder?']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('list_dir (filesystem) {"path":"."}');
    // `birdie run` shows a few lines of a result and counts the rest (the model reads all of it)
    for (const entry of ['.changeset/', '.ci/']) expect(result.stderr).toContain(entry);
    expect(result.stderr).toMatch(/✓ list_dir · \d+ lines, … \d+ more lines/);
    expect(result.stdout).toContain('Above is what this folder holds');
  });

  it('greets on anything else, and without the skill the listing is not available', async () => {
    const hello = await birdie(['run', 'hello']);
    expect(hello.code).toBe(0);
    expect(hello.stdout).toContain('Hello! I am birdie');
    const off = await birdie(['run', '--json', 'what files are in this folder?']);
    const ends = off.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((e) => e.type === 'tool-end');
    expect(ends).toEqual([expect.objectContaining({ name: 'list_dir', ok: false })]);
  });

  it('works in the REPL too, where --enable turns the skill on for the new session', async () => {
    const t = new Terminal(['--enable', 'filesystem'], { env: box.env, cwd: REPO_ROOT });
    try {
      await t.expect('/help for commands');
      await t.submit('hello');
      await t.expect('Hello! I am birdie');
      await t.submit('what files are in this folder?');
      await t.expect('⚙ list_dir (filesystem) {"path":"."}');
      await t.expect('Above is what this folder holds');
      await t.submit('/skill list');
      await t.expect(/on\s+filesystem\s+tool\s+[^\n]*this session/);
      await t.submit('/quit');
      expect(await t.exited).toBe(0);
    } finally {
      t.kill();
    }
  });
});
