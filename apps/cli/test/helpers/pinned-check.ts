import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { CLI_ROOT, type Sandbox, sandbox } from './env.js';
import { runCli } from './run-in-process.js';

export const REPO = join(CLI_ROOT, '..', '..');
export const BUNDLED = join(REPO, 'skills');
export const FIXTURES = join(REPO, 'packages', 'skill-parser', 'test', 'fixtures');
export const snapshot = (name: string) => fileURLToPath(new URL(`../snapshots/${name}`, import.meta.url));

/**
 * `birdie skills check|list` run in a sandbox whose bundled layer is the repository's skills; `check(argv)` gives both
 * streams and the exit code as text, with the machine's paths (and `replace`'s) swapped for stable names.
 */
export function pinnedCheck(replace: Record<string, string> = {}) {
  let box: Sandbox;
  beforeAll(async () => {
    box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
  });
  afterAll(async () => {
    await box.cleanup();
  });
  return async function check(argv: string[]): Promise<string> {
    const { code, stdout, stderr } = await runCli(argv, { env: box.env, cwd: box.cwd });
    let text = `$ birdie ${argv.join(' ')}\nexit ${code}\n--- stdout\n${stdout}--- stderr\n${stderr}`;
    for (const [path, name] of Object.entries(replace)) text = text.replaceAll(path, name);
    return text.replaceAll(REPO, '<repo>').replaceAll(box.dir.path, '<sandbox>');
  };
}

/** The sub-folders of `dir`, sorted, as full paths. */
export const folders = (dir: string) =>
  readdirSync(dir)
    .filter((name) => statSync(join(dir, name)).isDirectory())
    .sort()
    .map((name) => join(dir, name));
