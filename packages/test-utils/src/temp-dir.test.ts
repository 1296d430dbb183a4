import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, writeTree } from './index.js';

describe('temp dirs', () => {
  it('writes nested files and removes them on cleanup', async () => {
    const dir = await makeTempDir();
    await writeTree(dir.path, { 'a/b/c.txt': 'hello' });
    expect(await readFile(join(dir.path, 'a/b/c.txt'), 'utf8')).toBe('hello');
    await dir.cleanup();
    await expect(stat(dir.path)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
