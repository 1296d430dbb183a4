import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', '**/*.int.test.ts', '**/*.corpus.test.ts'],
    testTimeout: 20_000,
    // Clean-up hooks remove whole temp trees and stop child processes; on a loaded machine that outlasts
    // vitest's 10 s default, and a clean-up is no place for a test to fail.
    hookTimeout: 60_000,
  },
});
