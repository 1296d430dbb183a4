/**
 * Test sources for `testsReadingCorpus`'s own test: three plain tests that would read the shared corpus (by its
 * path, by joined folder names, through `corpusRoot()`), a corpus test and an integration test that may, and a clean
 * one. Kept out of the test file so that a scan of test files for corpus paths finds only real readers.
 */
export const CORPUS_READERS: Record<string, string> = {
  'packages/a/test/reads.test.ts': "const c = new URL('../../../../shared/corpus/x', import.meta.url);",
  'packages/a/test/joins.test.ts': "join(dir, 'shared', 'corpus')",
  'packages/a/test/helper.test.ts': 'const root = corpusRoot();',
  'packages/a/test/fine.corpus.test.ts': "new URL('../../shared/corpus', import.meta.url)",
  'packages/a/test/net.int.test.ts': 'process.env.BIRDIE_CORPUS',
  'apps/b/test/clean.test.ts': 'expect(1).toBe(1);',
};
