import { join } from 'node:path';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, beforeEach } from 'vitest';
import type { RuntimeIo } from '../../src/io.js';

/**
 * What the runtime gets of a process run by user `ada` whose HOME is `home` (BIRDIE_HOME its `.birdie`), working in
 * `cwd`, with `env` added; its warnings go nowhere.
 */
export function userIo(home: string, cwd = home, env: NodeJS.ProcessEnv = {}): RuntimeIo {
  return {
    env: { HOME: home, USER: 'ada', BIRDIE_HOME: join(home, '.birdie'), ...env },
    cwd,
    stderr: { write: () => true },
  };
}

/**
 * For each test of the file, a fresh folder as `ada`'s HOME and working folder: `home.path`, and `home.io` over it
 * (read them inside a test, they change before each). The folder is removed after the test.
 */
export function tempHomeEachTest(): { path: string; io: RuntimeIo } {
  const home = { path: '', io: userIo('') };
  let cleanup: () => Promise<void> = async () => {};
  beforeEach(async () => {
    const dir = await makeTempDir();
    cleanup = dir.cleanup;
    home.path = dir.path;
    home.io = userIo(dir.path);
  });
  afterEach(() => cleanup());
  return home;
}
