import { execFile, spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox, scripted, TEST_SKILLS } from './helpers/env.js';
import { isAlive, readPidFile, survives } from './helpers/processes.js';

const exec = promisify(execFile);

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
});
afterEach(async () => {
  await box.cleanup();
});

/** The compiled CLI as a child process without a TTY, the way scripts and CI call it. */
async function birdie(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], { env: box.env, cwd: box.cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the compiled bin', () => {
  it('is an executable node script', async () => {
    expect((await readFile(BIN, 'utf8')).split('\n')[0]).toBe('#!/usr/bin/env node');
    expect((await stat(BIN)).mode & 0o111).not.toBe(0);
    const { stdout } = await exec(BIN, ['--version'], { env: box.env });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('birdie run --json (compiled CLI)', () => {
  it('writes one JSON event per line, in order, for a turn with a tool call', async () => {
    const result = await birdie(['run', 'count these', '--json', '--skills-dir', TEST_SKILLS]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    const events = lines.map((line) => JSON.parse(line));
    expect(events.map((e) => e.type)).toEqual([
      'session',
      'message',
      'usage',
      'tool-start',
      'tool-output',
      'tool-end',
      'message',
      'token',
      'token',
      'token',
      'token',
      'message',
      'usage',
      'done',
      'result',
    ]);
    const [session, call, , start, live, end, toolMessage] = events;
    expect(session).toEqual({
      type: 'session',
      id: expect.stringMatching(/^\d{4}-\d{2}-\d{2}_1$/),
      user: 'tester',
      provider: 'scripted/scripted',
      sources: {
        vendor: 'env LLM_VENDOR',
        model: 'default',
        script: 'env LLM_SCRIPT',
        timeout: 'default',
        max_retries: 'default',
      },
    });
    expect(call.message).toMatchObject({
      role: 'ai',
      tool_calls: [{ name: 'count_words', args: { text: 'one two three' } }],
    });
    expect(start).toMatchObject({
      name: 'count_words',
      skill: 'word-count',
      args: { text: 'one two three' },
    });
    // The tool's output as it ran, before its end (the same text here: it printed one line).
    expect(live).toEqual({
      type: 'tool-output',
      id: start.id,
      name: 'count_words',
      stream: 'stdout',
      text: '3\n',
    });
    expect(end).toMatchObject({ name: 'count_words', ok: true, output: '3\n', truncated: false });
    expect(toolMessage.message).toMatchObject({ role: 'tool', content: '3\n', tool_call_id: start.id });
    expect(
      events
        .filter((e) => e.type === 'token')
        .map((e) => e.text)
        .join(''),
    ).toBe('There are 3 words.');
    expect(events.at(-2)).toEqual({ type: 'done', status: 'ok' });
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'ok', session: session.id });
  });

  it('reports refused approvals as events and exits 1; --approval never runs the tool', async () => {
    const refused = await birdie(['run', 'touch it', '--json', '--skills-dir', TEST_SKILLS]);
    expect(refused.code).toBe(1);
    const events = refused.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => e.type)).toContain('approval-request');
    expect(events.find((e) => e.type === 'approval-refused')).toMatchObject({
      tool: 'run_command',
      reason: expect.stringContaining('--yes'),
    });
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'rejected' });
    // One turn, one done, agreeing with the result; a refused call never starts.
    expect(events.filter((e) => e.type === 'done')).toEqual([{ type: 'done', status: 'rejected' }]);
    expect(events.at(-2)).toEqual({ type: 'done', status: 'rejected' });
    const refusedId = events.find((e) => e.type === 'approval-refused').id;
    expect(events.filter((e) => e.type === 'tool-start' && e.id === refusedId)).toEqual([]);
    const order = events.map((e) => `${e.type}:${e.id ?? ''}`);
    expect(order.indexOf(`approval-refused:${refusedId}`)).toBeLessThan(
      order.indexOf(`tool-end:${refusedId}`),
    );
    await expect(stat(join(box.cwd, 'marker.txt'))).rejects.toMatchObject({ code: 'ENOENT' });

    const never = await birdie([
      'run',
      'touch it',
      '--json',
      '--approval',
      'never',
      '--skills-dir',
      TEST_SKILLS,
    ]);
    expect(never.code).toBe(0);
    const types = never.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).type);
    expect(types).not.toContain('approval-request');
    expect((await stat(join(box.cwd, 'marker.txt'))).isFile()).toBe(true);
  });

  /** Starts birdie, waits for the sleeping tool's pid, sends `signal`; returns birdie's exit code and whether the sleep outlived it. */
  async function signalDuringSleep(argv: string[], signal: NodeJS.Signals) {
    const child = spawn(process.execPath, [BIN, ...argv], {
      env: { ...box.env, ...scripted('repl.json') },
      cwd: box.cwd,
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const pid = await readPidFile(join(box.cwd, 'sleep.pid'));
    expect(pid).toBeGreaterThan(0);
    child.kill(signal);
    const code = await exited;
    return { code, alive: await survives(pid) };
  }

  it.each(['SIGTERM', 'SIGHUP'] as const)(
    '%s ends `birdie run` with exit 1 and kills the running tool, like Ctrl+C',
    async (signal) => {
      const result = await signalDuringSleep(
        ['run', 'please sleep', '--json', '--skills-dir', TEST_SKILLS],
        signal,
      );
      expect(result).toEqual({ code: 1, alive: false });
    },
  );

  // Sibling of the drain's report: the tool a SIGTERM stopped was answered "Cancelled by the user", and the history
  // kept that; nobody cancelled it. Ctrl+C (SIGINT) is the user's cancel and still says so.
  it.each([
    ['SIGTERM', 'Stopped because birdie was stopped (SIGTERM)'],
    ['SIGHUP', 'Stopped because the terminal closed (SIGHUP)'],
    ['SIGINT', 'Cancelled by the user'],
  ] as const)('%s: the tool it stopped is answered with what stopped it', async (signal, note) => {
    const { code, stdout } = await stopDuringSleep(['--json'], signal);
    expect(code).toBe(1);
    const events = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const end = events.find((e) => e.type === 'tool-end');
    expect(end).toMatchObject({ ok: false, outcome: 'cancelled', stopNote: note });
    expect(end.output).toContain(`[${note} while it ran`);
  });

  // The terminal's mark of such a call said "cancelled by the user" whatever stopped it: the user who stopped nothing
  // read that they had. It says what stopped the call, as its answer does.
  it.each([
    ['SIGTERM', 'stopped because birdie was stopped (SIGTERM)'],
    ['SIGHUP', 'stopped because the terminal closed (SIGHUP)'],
    ['SIGINT', 'cancelled by the user'],
  ] as const)('%s: the call stopped is marked on stderr with what stopped it', async (signal, mark) => {
    const { code, stderr } = await stopDuringSleep([], signal);
    expect(code).toBe(1);
    expect(stderr).toContain(`└ ✗ ${mark} slow_sleep · `);
    if (signal !== 'SIGINT') expect(stderr).not.toContain('cancelled by the user');
  });

  /** `birdie run 'please sleep' FLAGS`, stopped by `signal` once the tool sleeps: its exit code and output. */
  async function stopDuringSleep(flags: string[], signal: NodeJS.Signals) {
    const child = spawn(
      process.execPath,
      [BIN, 'run', 'please sleep', ...flags, '--skills-dir', TEST_SKILLS],
      {
        env: { ...box.env, ...scripted('repl.json') },
        cwd: box.cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    expect(await readPidFile(join(box.cwd, 'sleep.pid'))).toBeGreaterThan(0);
    child.kill(signal);
    return { code: await exited, stdout, stderr };
  }

  it.each([
    ['SIGTERM', 'auto'],
    ['SIGINT', 'auto'],
    ['SIGTERM', 'off'],
  ] as const)(
    '%s to `birdie run` kills a tool that ignores TERM, INT and HUP before birdie exits (process guard %s)',
    async (signal, guard) => {
      const child = spawn(
        process.execPath,
        [BIN, 'run', 'stubborn sleep', '--json', '--skills-dir', TEST_SKILLS],
        {
          env: { ...box.env, ...scripted('repl.json'), BIRDIE_PROCESS_GUARD: guard },
          cwd: box.cwd,
          stdio: 'ignore',
        },
      );
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const pid = await readPidFile(join(box.cwd, 'sleep.pid'));
      expect(pid).toBeGreaterThan(0);
      // Let the trap take effect, as it would for a tool that has been running a while.
      await new Promise((r) => setTimeout(r, 200));
      child.kill(signal);
      expect(await exited).toBe(1);
      // TERM to the tool's group, then KILL after the grace period — all before `birdie run` exits.
      expect(isAlive(pid)).toBe(false);
    },
  );

  it('SIGTERM ends `birdie tool` and kills the running tool', async () => {
    const args = JSON.stringify({ seconds: '60', pidfile: 'sleep.pid' });
    const result = await signalDuringSleep(
      ['tool', 'slow_sleep', '--args', args, '--skills-dir', TEST_SKILLS],
      'SIGTERM',
    );
    expect(result).toEqual({ code: 1, alive: false });
  });

  it('SIGINT (Ctrl+C) ends the run with exit 1 and kills the running tool', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'run', 'please sleep', '--json', '--skills-dir', TEST_SKILLS],
      {
        env: { ...box.env, ...scripted('repl.json') },
        cwd: box.cwd,
      },
    );
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const pid = await readPidFile(join(box.cwd, 'sleep.pid'));
    expect(pid).toBeGreaterThan(0);
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    const events = stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'cancelled' });
    expect(await survives(pid)).toBe(false);
  });

  it('reports a vendor retry: a retry event with --json, a line on stderr without', async () => {
    const env = { ...box.env, ...scripted('repl.json') };
    const run = async (args: string[]) => {
      try {
        return await exec(process.execPath, [BIN, ...args], { env, cwd: box.cwd });
      } catch (error) {
        return error as { stdout: string; stderr: string };
      }
    };
    const json = await run(['run', 'busy vendor', '--json']);
    const retry = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((e) => e.type === 'retry');
    expect(retry).toEqual({
      type: 'retry',
      vendor: 'scripted',
      status: 429,
      attempt: 1,
      of: 2,
      delayMs: 1000,
    });
    const text = await run(['run', 'busy vendor']);
    expect(text.stderr).toContain(
      'birdie: scripted is rate limiting (HTTP 429): retrying in 1 s, attempt 1 of 2',
    );
    expect(text.stdout).toContain('Answered after the wait.');
  });

  it('exits 2 for usage errors with nothing on stdout', async () => {
    const result = await birdie(['run', '--json']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain('Usage: birdie run');
  });
});
