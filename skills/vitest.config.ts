import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', '*/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', '**/*.int.test.ts', '**/*.corpus.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // The filesystem tests change the process's working directory, which worker threads cannot do.
    pool: 'forks',
    testTimeout: 20_000,
  },
});
