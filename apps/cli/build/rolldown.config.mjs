// The CLI ships as one ESM entry (dist/bin.js) plus chunks loaded on demand (a command, the runtime, a model vendor,
// the MCP client). The CLI's own code, the @birdie packages (through their built dist/, so they stay separately
// built and publishable) and every pure-JS dependency are bundled; packages with a native addon stay external.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'rolldown';

/** Loaded from node_modules at run time, so each is a `dependency` of the CLI. */
export const NATIVE = ['better-sqlite3'];
/**
 * Also loaded from node_modules, by @birdie/entrypoints and only for a `grpc:` tool: its load-time check is
 * synchronous, so it reads `.proto` files through `createRequire`, which a bundler cannot follow. Dependencies too.
 */
export const RUNTIME_REQUIRED = ['@grpc/grpc-js', '@grpc/proto-loader'];

export default defineConfig({
  cwd: fileURLToPath(new URL('..', import.meta.url)),
  input: { bin: 'src/bin.ts' },
  platform: 'node',
  external: (id) => [...NATIVE, ...RUNTIME_REQUIRED].some((name) => id === name || id.startsWith(`${name}/`)),
  logLevel: 'warn',
  output: {
    dir: 'dist',
    format: 'esm',
    // Flat: modules find files next to them through import.meta.url (../package.json, ./skills, ../agents).
    chunkFileNames: '[name]-[hash].js',
    // Less to parse at every start: peak memory of a scripted run 0.93× the unminified bundle's (0.95× with names
    // kept). Stack traces map back to the sources with `NODE_OPTIONS=--enable-source-maps`.
    minify: true,
    sourcemap: true,
    cleanDir: true,
  },
});
