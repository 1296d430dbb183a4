import { defineConfig } from 'vitest/config';

// `pnpm test:int`: the tests that reach the real Open-Meteo and DuckDuckGo services (network needed).
export default defineConfig({
  test: {
    include: ['test/**/*.int.test.ts'],
    testTimeout: 60_000,
  },
});
