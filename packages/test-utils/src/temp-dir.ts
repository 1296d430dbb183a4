import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempDir {
  path: string;
  /** Removes the folder and everything under it. Safe to call twice. */
  cleanup(): Promise<void>;
}

/** A fresh folder under the OS temp dir; tests own it and remove it. */
export async function makeTempDir(prefix = 'birdie-test-'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** Writes `{ 'a/b.txt': 'text' }` under `root`, creating folders as needed. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const target = join(root, relative);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}
