import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox, scripted, TEST_SKILLS } from './helpers/env.js';

const exec = promisify(execFile);

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
});
afterEach(async () => {
  await box.cleanup();
});

async function birdie(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], { env: box.env, cwd: box.cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('birdie run without --yes: a call nobody could approve', () => {
  it('is refused, not rejected by a user, in the events, in what the model reads and in the run log', async () => {
    const run = await birdie(['run', 'touch it', '--json', '--skills-dir', TEST_SKILLS]);
    expect(run.code).toBe(1);
    const events = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const end = events.find((e) => e.type === 'tool-end');
    expect(end).toMatchObject({ name: 'run_command', ok: false, outcome: 'refused' });
    expect(end.output).not.toMatch(/user rejected/i);
    expect(end.output).toMatch(/nobody was asked/i);
    expect(end.output).toContain('--yes');
    // The model reads the same words as the event.
    const toolMessage = events.find((e) => e.type === 'message' && e.message.role === 'tool');
    expect(toolMessage.message.content).toBe(end.output);

    const logs = await birdie(['logs', '-n', '1', '--json']);
    expect(logs.code).toBe(0);
    const logged = JSON.parse(logs.stdout.split('\n')[0]!);
    expect(logged.status).toBe('rejected');
    expect(logged.error).toContain('birdie run does not ask for approval');
    expect(logged.error).toContain('run_command');
  });
});
