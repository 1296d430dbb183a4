import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@birdie/test-utils';
import { describe, expect, it } from 'vitest';
import {
  appendHistory,
  HISTORY_LIMIT,
  historyFile,
  loadHistory,
  openHistory,
  prepareHistory,
} from './input-history.js';

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

  it('holds the cap while a session appends, keeping what another session appended meanwhile', async () => {
    const dir = await makeTempDir();
    try {
      const file = join(dir.path, 'history', 'ann.jsonl');
      const lines = async () => (await readFile(file, 'utf8')).trimEnd().split('\n');
      const history = await openHistory(file, 10);
      expect(history.entries).toEqual([]);
      for (let i = 0; i < 30; i++) {
        history.remember(`mine ${i}`);
        if (i === 25) appendHistory(file, 'theirs'); // another REPL of the same user, which this one does not count
        expect((await lines()).length).toBeLessThanOrEqual(i < 25 ? 12 : 13);
      }
      const mine = (from: number, to: number) =>
        Array.from({ length: to - from + 1 }, (_, k) => `mine ${from + k}`);
      expect(await loadHistory(file, 10)).toEqual([...mine(21, 25), 'theirs', ...mine(26, 29)]);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    } finally {
      await dir.cleanup();
    }
  });
});
