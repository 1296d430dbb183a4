#!/usr/bin/env node
import module from 'node:module';

// Node ≥ 22.1 keeps V8's compiled code of the bundle on disk between runs; Node 20 has no such cache (feature-detected).
// It must be on before the rest of the CLI loads, hence the dynamic imports below.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const [
  {
    exitCodeAfterStrayFailures,
    guardProcessFailures,
    guardProcessOutput,
    outputExitCode,
    outputFailure,
    processIo,
  },
  { main },
] = await Promise.all([import('./io.js'), import('./main.js')]);

// Output that cannot be written (`birdie logs | head -1`, `> /dev/full`) stops the command, not a stack trace.
guardProcessOutput();
// A skill tool's stray rejection or throw fails that tool's call, not the process (every session of `birdie acp`).
guardProcessFailures();

const code = exitCodeAfterStrayFailures(await main(process.argv.slice(2), processIo()));
// Exit explicitly once stdout has drained: a lingering handle (a file watcher, an MCP child) must not keep a
// finished command alive, and a piped reader must still get every byte. Output that failed never drains.
if (outputFailure()) process.exit(outputExitCode(code));
process.exitCode = code;
if (process.stdout.writableNeedDrain) process.stdout.once('drain', () => process.exit(code));
else process.exit(code);
