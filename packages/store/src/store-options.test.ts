import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StoreError } from './errors.js';
import { openStore } from './store.js';

// Reported by an embedder: `openStore({ home: '' })` (an unset variable passed on) made birdie.db in the current
// folder, and `openStore({ file: 5 })` failed with a TypeError from inside Node instead of the store's own error.

let dir: string;
let cwd: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'birdie-store-options-'));
  cwd = process.cwd();
  process.chdir(dir);
});
afterEach(() => {
  process.chdir(cwd);
  rmSync(dir, { recursive: true, force: true });
});

const refusal = (open: () => unknown): StoreError => {
  try {
    open();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return error as StoreError;
  }
  throw new Error('expected openStore to refuse its options');
};

it.each([
  [{ home: '' }, 'home must be the path of a folder, not ""'],
  [{ file: '' }, 'file must be the path of a file, not ""'],
  [{ home: 5 }, 'home must be the path of a folder, not a number'],
  [{ file: null }, 'file must be the path of a file, not null'],
])('refuses %o as invalid-argument and writes nothing', (options, message) => {
  const error = refusal(() => openStore(options as never));
  expect(error.code).toBe('invalid-argument');
  expect(error.message).toBe(message);
  expect(existsSync(join(dir, 'birdie.db'))).toBe(false);
});

it('takes an empty BIRDIE_HOME as unset, as the CLI does, not as the current folder', async () => {
  const saved = { BIRDIE_HOME: process.env.BIRDIE_HOME, HOME: process.env.HOME };
  const home = join(dir, 'home');
  process.env.HOME = home;
  process.env.BIRDIE_HOME = '';
  try {
    const store = openStore({ file: undefined, home: undefined });
    try {
      expect(store.file).toBe(join(home, '.birdie', 'birdie.db'));
    } finally {
      await store.close();
    }
    expect(existsSync(join(dir, 'birdie.db'))).toBe(false);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});
