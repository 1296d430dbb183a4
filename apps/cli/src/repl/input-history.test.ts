import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@birdie/test-utils';
import { describe, expect, it } from 'vitest';
import { appendHistory, HISTORY_LIMIT, historyFile, loadHistory, prepareHistory } from './input-history.js';

describe('input history', () => {
  it('keeps multi-line inputs, skips a torn line, and is one 0600 file per user in the birdie folder', async () => {
    const dir = await makeTempDir();
    try {
      const file = historyFile({ BIRDIE_HOME: dir.path }, 'ann/../x');
      expect(file).toBe(join(dir.path, 'history', 'ann%2F..%2Fx.jsonl'));
      await prepareHistory(file);
      appendHistory(file, 'first');
      appendHistory(file, 'two\nlines');
      await writeFile(file, `${await readFile(file, 'utf8')}"torn`);
      expect(await loadHistory(file)).toEqual(['first', 'two\nlines']);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(await loadHistory(join(dir.path, 'missing.jsonl'))).toEqual([]);
    } finally {
      await dir.cleanup();
    }
  });

  it('is capped: past a fifth over the limit the file is rewritten to the newest entries', async () => {
    const dir = await makeTempDir();
    try {
      const file = join(dir.path, 'h.jsonl');
      const many = Array.from({ length: HISTORY_LIMIT * 1.3 }, (_, i) => JSON.stringify(`input ${i}`)).join(
        '\n',
      );
      await writeFile(file, `${many}\n`);
      const loaded = await loadHistory(file);
      expect(loaded).toHaveLength(HISTORY_LIMIT);
      expect(loaded.at(-1)).toBe(`input ${HISTORY_LIMIT * 1.3 - 1}`);
      expect((await readFile(file, 'utf8')).trimEnd().split('\n')).toHaveLength(HISTORY_LIMIT);
    } finally {
      await dir.cleanup();
    }
  });
});
