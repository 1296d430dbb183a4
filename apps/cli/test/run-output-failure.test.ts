import { execFile, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';

const exec = promisify(execFile);

// stdout that cannot be written: a full disk (`> /dev/full`, ENOSPC) or a reader that went away (`| head -1`,
// EPIPE). Either stops the run as a stop signal would — ended in the run log, not left `died` — without a stack trace.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
  const script = join(box.dir.path, 'big.json');
  await writeFile(
    script,
    JSON.stringify({
      replies: [
        { tool_calls: [{ name: 'run_command', args: { command: 'seq 1 100000' } }] },
        { text: 'done' },
      ],
    }),
  );
  box.env = { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script };
});
afterEach(async () => {
  await box.cleanup();
});

const RUN = ['run', 'go', '--yes', '--json', '--skills-dir', TEST_SKILLS];

/** Runs the compiled CLI with `stdout` as given; resolves with its exit code and stderr. */
function runWith(stdout: number | 'pipe', onStdout?: (child: ReturnType<typeof spawn>) => void) {
  const child = spawn(process.execPath, [BIN, ...RUN], {
    env: box.env,
    cwd: box.cwd,
    stdio: ['ignore', stdout, 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  onStdout?.(child);
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

async function lastRun(): Promise<{ status: string }> {
  const { stdout } = await exec(process.execPath, [BIN, 'logs', '-n', '1', '--json'], {
    env: box.env,
    cwd: box.cwd,
  });
  return JSON.parse(stdout.split('\n')[0]!);
}

describe('birdie run whose stdout cannot be written', () => {
  it('a full disk: one line saying so, exit 1, and the run ended, not died', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const run = await runWith(full);
      expect(run.stderr).toMatch(/^birdie: cannot write to stdout: ENOSPC[^\n]*\n$/);
      expect(run.stderr).not.toMatch(/^\s+at /m);
      expect(run.stderr).not.toContain('node:fs');
      expect(run.code).toBe(1);
    } finally {
      closeSync(full);
    }
    expect((await lastRun()).status).not.toMatch(/died|running/);
  });

  it('a reader that goes away: ends quietly, and the run ended, not died', async () => {
    const run = await runWith('pipe', (child) => {
      // Read the first chunk, then close the pipe, as `| head -1` does.
      child.stdout!.once('data', () => child.stdout!.destroy());
    });
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(run.stderr).not.toMatch(/EPIPE|Error|interrupted/);
    expect(run.code).not.toBeNull();
    expect((await lastRun()).status).toBe('cancelled');
  });
});
