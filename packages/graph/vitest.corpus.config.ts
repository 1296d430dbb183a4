import { defineConfig } from 'vitest/config';

/** `pnpm test:corpus`: compatibility tests that read ../shared/corpus beside the checkout (never copied into it). */
export default defineConfig({
  test: {
    include: ['test/**/*.corpus.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 20_000,
  },
});
