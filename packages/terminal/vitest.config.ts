import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', '**/*.int.test.ts'],
    // A hang guard, not a speed check: a test that spawns processes can take 20 s when the machine is loaded.
    testTimeout: 60_000,
    // Clean-up hooks remove whole temp trees and stop child processes; on a loaded machine that outlasts
    // vitest's 10 s default, and a clean-up is no place for a test to fail.
    hookTimeout: 60_000,
  },
});
