import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CorpusMissingError, corpusRoot, testsReadingCorpus } from './corpus.js';
import { CORPUS_READERS } from './corpus-samples.js';
import { makeTempDir, writeTree } from './temp-dir.js';

describe('the shared corpus stays out of `pnpm test`', () => {
  it('no test of `pnpm test` in this checkout reads the shared corpus (a user clone has none)', () => {
    expect(testsReadingCorpus()).toEqual([]);
  });

  it('finds a plain test that reads the corpus, and leaves corpus and integration tests alone', async () => {
    const dir = await makeTempDir();
    try {
      await writeTree(dir.path, CORPUS_READERS);
      expect(testsReadingCorpus(dir.path)).toEqual([
        'packages/a/test/helper.test.ts',
        'packages/a/test/joins.test.ts',
        'packages/a/test/reads.test.ts',
      ]);
    } finally {
      await dir.cleanup();
    }
  });
});

describe('corpusRoot', () => {
  const saved = process.env.BIRDIE_CORPUS;
  afterEach(() => {
    if (saved === undefined) delete process.env.BIRDIE_CORPUS;
    else process.env.BIRDIE_CORPUS = saved;
  });

  it('fails with a named error (never an empty corpus) when the folder is missing', () => {
    process.env.BIRDIE_CORPUS = '/nonexistent/corpus';
    expect(() => corpusRoot()).toThrow(CorpusMissingError);
    expect(() => corpusRoot()).toThrow(/pnpm test:corpus.*BIRDIE_CORPUS/);
  });

  it('returns $BIRDIE_CORPUS when it holds a corpus', async () => {
    const dir = await makeTempDir();
    try {
      mkdirSync(join(dir.path, 'agentskills'));
      process.env.BIRDIE_CORPUS = dir.path;
      expect(corpusRoot()).toBe(dir.path);
    } finally {
      await dir.cleanup();
    }
  });
});
