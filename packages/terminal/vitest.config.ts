import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Never the built copies in dist/.
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // A hang guard, not a speed check: the Markdown stream's cases render a sample once per split point (hundreds of
    // renders), well under a second alone and over vitest's 5 s default on a loaded 2-core machine.
    testTimeout: 60_000,
  },
});
