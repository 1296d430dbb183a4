import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '@birdie/test-utils';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { userIo } from './temp-home.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/**
 * A runtime over a fresh BIRDIE_HOME (user `ada`, the scripted model) holding `files` (paths relative to that home,
 * e.g. `skills/x/SKILL.md`, `agents/a.md`, `commands/c.md`); the working folder is another, untrusted folder.
 * `project` holds files of the working folder (e.g. `.birdie/skills/x/SKILL.md`). `cleanups` gets what closes and
 * removes it. `script` names the scripted model's script among the fixtures (default `shout.json`).
 */
export async function tempRuntime(
  files: Record<string, string>,
  cleanups: Array<() => Promise<unknown>>,
  project: Record<string, string> = {},
  script = 'shout.json',
): Promise<Runtime> {
  const dir = await makeTempDir('birdie-rt-');
  cleanups.push(dir.cleanup);
  const home = join(dir.path, '.birdie');
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(home, path)), { recursive: true });
    await writeFile(join(home, path), text);
  }
  const work = join(dir.path, 'work');
  await mkdir(work);
  for (const [path, text] of Object.entries(project)) {
    await mkdir(dirname(join(work, path)), { recursive: true });
    await writeFile(join(work, path), text);
  }
  const io = userIo(dir.path, work, {
    PATH: process.env.PATH,
    LLM_VENDOR: 'scripted',
    LLM_SCRIPT: fixture(script),
  });
  const rt = await openRuntime(io, {});
  cleanups.push(() => rt.close());
  return rt;
}
