import { defineConfig } from 'vitest/config';

// Pure functions and one example process: vitest's defaults, but never the built copies in dist/.
export default defineConfig({ test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'] } });
