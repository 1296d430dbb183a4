import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, StoreError } from '../src/index.js';
import { tempHome } from './helpers.js';

const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

let home: ReturnType<typeof tempHome>;
beforeEach(async () => {
  home = tempHome();
});
afterEach(() => home.cleanup());

/** Opens a store in a child process, so a busy loop ends in a kill (a failed test) instead of a hung run. */
function openInChild(dir: string): { code?: string; message?: string; timedOut: boolean } {
  const script = `
    import { openStore } from ${JSON.stringify(DIST)};
    try { openStore({ home: process.argv[1] }).close(); console.log(JSON.stringify({ opened: true })); }
    catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, dir], {
    encoding: 'utf8',
    timeout: 45_000,
    killSignal: 'SIGKILL',
  });
  if (result.signal === 'SIGKILL') return { timedOut: true };
  return { ...JSON.parse(result.stdout), timedOut: false };
}

function errorOf(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return error as StoreError;
  }
  throw new Error('expected a StoreError');
}

describe('openStore: a home where no folder can be made', () => {
  it.runIf(process.platform === 'linux')(
    'fails at once with home-unusable under /proc (Node recursive mkdir loops there)',
    { timeout: 60_000 },
    () => {
      const result = openInChild('/proc/birdie-no-such-folder/home');
      expect(result.timedOut).toBe(false);
      expect(result.code).toBe('home-unusable');
      expect(result.message).toContain('/proc/birdie-no-such-folder');
    },
  );

  it('names a file that sits in the path', async () => {
    const file = join(home.dir, 'a-file');
    writeFileSync(file, 'not a folder');
    const error = errorOf(() => openStore({ home: join(file, 'sub', '.birdie') }));
    expect(error.code).toBe('home-unusable');
    expect(error.message).toBe(
      `cannot create the folder ${join(file, 'sub', '.birdie')}: ${file} is not a folder`,
    );
  });

  it('still creates every missing folder of a deep path, each 0700', async () => {
    const store = openStore({ home: join(home.dir, 'x', 'y', 'z') });
    await store.close();
    expect(store.file).toBe(join(home.dir, 'x', 'y', 'z', 'birdie.db'));
  });
});
