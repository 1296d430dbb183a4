import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', '**/*.int.test.ts', '**/*.corpus.test.ts'],
    testTimeout: 20_000,
    // The tests that start the CLI run the bundle: rebuild it first when the sources or a package's dist/ changed.
    globalSetup: ['test/helpers/fresh-bundle.ts'],
  },
});
