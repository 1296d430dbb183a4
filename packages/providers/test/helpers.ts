import { join } from 'node:path';
import { makeTempDir, writeTree } from '@birdie/test-utils';
import { afterEach, beforeEach, expect } from 'vitest';
import { ProviderError } from '../src/errors.js';

/** What `promise` rejects with, checked to be a ProviderError (a resolved promise fails the check). */
export async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

/**
 * A fresh temp folder for each test of the calling file, removed after it. `path` is the folder; `file(name,
 * content)` writes a file there and returns its path.
 */
export function useTempDir(prefix: string) {
  let dir: Awaited<ReturnType<typeof makeTempDir>> | undefined;
  beforeEach(async () => {
    dir = await makeTempDir(prefix);
  });
  afterEach(async () => {
    await dir?.cleanup();
    dir = undefined;
  });
  const temp = {
    get path(): string {
      if (!dir) throw new Error('useTempDir: the folder exists only while a test runs');
      return dir.path;
    },
    async file(name: string, content: string): Promise<string> {
      await writeTree(temp.path, { [name]: content });
      return join(temp.path, name);
    },
  };
  return temp;
}
