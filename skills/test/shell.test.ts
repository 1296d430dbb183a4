import { join } from 'node:path';
import { type Entrypoint, isEntrypointError } from '@birdie/entrypoints';
import { makeTempDir } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolEntrypoint } from './helpers.js';

type TempDir = Awaited<ReturnType<typeof makeTempDir>>;

let runBash: Entrypoint;
let work: TempDir;

beforeAll(async () => {
  runBash = await toolEntrypoint('shell', 'run_bash');
  work = await makeTempDir('birdie-shell-');
});

afterAll(async () => {
  await work.cleanup();
});

describe('shell: run_bash', () => {
  it('is raw by declaration, so the runtime asks before running it', () => {
    expect(runBash.raw).toBe(true);
  });

  it('runs a whole command line in the given working directory', async () => {
    const result = await runBash.run(
      { command: 'printf "%s\\n" one two | tr a-z A-Z > out.txt && cat out.txt && pwd' },
      { cwd: work.path, timeoutMs: 10_000 },
    );
    expect(result.output).toBe(`ONE\nTWO\n${work.path}\n`);
    expect(result.exitCode).toBe(0);
  });

  it('turns a non-zero exit into an error that names the status and shows stderr', async () => {
    const error = await runBash
      .run(
        { command: 'echo partial; echo "no such thing" >&2; exit 3' },
        { cwd: work.path, timeoutMs: 10_000 },
      )
      .catch((caught: unknown) => caught);
    expect(isEntrypointError(error, 'non-zero-exit')).toBe(true);
    expect((error as Error).message).toMatch(/3/);
    // the output (stdout and stderr merged) travels beside the message, which does not repeat it
    expect((error as { output?: string }).output).toMatch(/no such thing/);
  });

  it('stops a command at its timeout, with its children', async () => {
    const marker = join(work.path, 'survived');
    const error = await runBash
      .run(
        { command: `(sleep 1 && touch ${marker}) & sleep 30` },
        { cwd: work.path, timeoutMs: 300, killGraceMs: 200 },
      )
      .catch((caught: unknown) => caught);
    expect(isEntrypointError(error, 'timeout')).toBe(true);
    const exists = await runBash.run(
      { command: `sleep 1.5; test -e ${marker} && echo yes || echo no` },
      { timeoutMs: 10_000 },
    );
    expect(exists.output).toBe('no\n');
  });

  it('caps what it returns', async () => {
    const result = await runBash.run(
      { command: 'head -c 500000 /dev/zero | tr "\\0" x' },
      { maxOutputBytes: 1000, timeoutMs: 10_000 },
    );
    expect(result.truncated).toBe(true);
    expect(result.output.length).toBeLessThan(2000);
  });

  it('keeps the host secrets out of the command environment', async () => {
    process.env.BIRDIE_TEST_SECRET_API_KEY = 'canary-value';
    try {
      const result = await runBash.run({ command: 'env' }, { timeoutMs: 10_000 });
      expect(result.output).not.toContain('canary-value');
    } finally {
      delete process.env.BIRDIE_TEST_SECRET_API_KEY;
    }
  });
});
