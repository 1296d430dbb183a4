#!/usr/bin/env node
import { processIo } from './io.js';
import { main } from './main.js';

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
