import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Real bash with a tracing shim: every program a command line runs is a shim that records its argv (a folder of
 * shims is the whole PATH, so nothing real runs), and bash's own simple builtins (`echo`, `printf`, `test`, `true`,
 * `kill`, …) are disabled through `BASH_ENV`, so they run as shims too. What is recorded is what bash executed.
 */
export interface BashTracer {
  /** argv of each program run by `bash -c line`, in no particular order; shims exit with `status`. */
  run(line: string, status?: 0 | 1): string[][];
  /** Removes the shims and the work folder. */
  close(): void;
}

/** Builtins that run as programs under the tracer (enable -n), so a shim records them. */
const DISABLED_BUILTINS = [
  'echo',
  'printf',
  'true',
  'false',
  'test',
  '[',
  'kill',
  'pwd',
  'type',
  'times',
  'jobs',
  'dirs',
  'help',
  'caller',
];

/**
 * Makes a tracer with a shim for each of `programs` (names without `/`, or `./name` for one in the work folder, where
 * bash runs). A program with no shim is "not found" (bash prints an error; nothing is recorded).
 */
export function bashTracer(programs: Iterable<string>): BashTracer {
  const root = mkdtempSync(join(tmpdir(), 'birdie-trace-'));
  const bin = join(root, 'bin');
  const trace = join(root, 'trace');
  const work = join(root, 'work');
  for (const dir of [bin, trace, work]) mkdirSync(dir);
  const shim = [
    '#!/bin/sh',
    'f=$(/usr/bin/mktemp "$TRACE_DIR/c.XXXXXXXX")',
    // a program found on PATH is recorded by its name, one run as `./name` as it was written
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a JS template
    'case "$0" in "$SHIM_BIN"/*) n=${0##*/} ;; *) n=$0 ;; esac',
    'printf \'%s\\0\' "$n" "$@" > "$f"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a JS template
    'exit "${SHIM_STATUS:-0}"',
    '',
  ].join('\n');
  for (const program of new Set(programs)) {
    // `./x` is a shim in the work folder; an absolute path or a name with NUL cannot be shimmed.
    const local = /^\.\/[^/\0]+$/.test(program);
    if (!local && (!/^[^/\0]+$/.test(program) || program === '.' || program === '..')) continue;
    const file = local ? join(work, program.slice(2)) : join(bin, program);
    writeFileSync(file, shim);
    chmodSync(file, 0o755);
  }
  const env = join(root, 'env.sh');
  writeFileSync(env, `enable -n ${DISABLED_BUILTINS.map((b) => `'${b}'`).join(' ')} 2>/dev/null\n`);
  return {
    run(line, status = 0) {
      for (const f of readdirSync(trace)) rmSync(join(trace, f));
      spawnSync('/bin/bash', ['-c', line], {
        cwd: work,
        env: {
          PATH: bin,
          SHIM_BIN: bin,
          HOME: work,
          TRACE_DIR: trace,
          SHIM_STATUS: String(status),
          BASH_ENV: env,
        },
        stdio: ['ignore', 'ignore', 'ignore'],
        timeout: 20_000,
      });
      return readdirSync(trace).map((f) => {
        const text = readFileSync(join(trace, f), 'utf8');
        return text.split('\0').slice(0, -1);
      });
    },
    close() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
