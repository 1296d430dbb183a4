#!/usr/bin/env node
import module from 'node:module';

// Node ≥ 22.1 keeps V8's compiled code of the bundle on disk between runs; Node 20 has no such cache (feature-detected).
// It must be on before the rest of the CLI loads, hence the dynamic imports below.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const [{ processIo }, { main }] = await Promise.all([import('./io.js'), import('./main.js')]);

// A reader that goes away (`birdie logs | head -1`) is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const code = await main(process.argv.slice(2), processIo());
// Exit explicitly once stdout has drained: a lingering handle (a file watcher, an MCP child) must not keep a
// finished command alive, and a piped reader must still get every byte.
process.exitCode = code;
if (process.stdout.writableNeedDrain) process.stdout.once('drain', () => process.exit(code));
else process.exit(code);
