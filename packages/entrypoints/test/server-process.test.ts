import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  configureProcessGuard,
  type ProcessGuardMode,
  processGuardStatus,
  type ServerProcess,
  stopAllProcesses,
  wrapServerCommand,
} from '../src/index.js';
import { isAlive, livingInGroup, sleepMs, tempDir } from './helpers.js';
import { descendants, startParent, stillRunning } from './parent-process.js';

let dir: string;
const started: ServerProcess[] = [];
beforeAll(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop({ graceMs: 100 })));
});
afterAll(() => configureProcessGuard(undefined));

async function pids(file: string): Promise<number[]> {
  for (let k = 0; k < 500; k++) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (text.endsWith('\n')) return text.trim().split(/\s+/).map(Number);
    await sleepMs(20);
  }
  throw new Error(`${file} never appeared`);
}

/** Starts the wrapped command the way the MCP SDK's stdio transport does: a plain spawn, pipes, no group. */
function spawnLikeTheSdk(server: ServerProcess): ChildProcess {
  const child = spawn(server.command, server.args, { env: server.env, stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdout!.resume();
  return child;
}

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleepMs(20);
  }
}

async function pgrp(pid: number): Promise<number> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8');
  return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[2]);
}

describe.each<ProcessGuardMode>(['off', 'auto'])('wrapServerCommand (guard %s)', (mode) => {
  beforeAll(() => configureProcessGuard(mode));

  it("with captureStderr, keeps the server's last stderr lines even when the spawner ignores stderr, and caps the file", async () => {
    const server = await wrapServerCommand({
      command: 'bash',
      args: [
        '-c',
        'for i in $(seq 1 3000); do echo "line $i of the log" >&2; done; echo "fatal: port in use" >&2; exit 4',
      ],
      captureStderr: true,
    });
    started.push(server);
    const child = spawnLikeTheSdk(server);
    await new Promise((resolve) => child.on('exit', resolve));
    const tail = server.stderrTail(300);
    expect(tail.endsWith('fatal: port in use')).toBe(true);
    expect(tail.length).toBeLessThanOrEqual(301);
    expect(tail).not.toContain('line 1 of');
    // past 1 MB, alive() empties the file; what comes after is kept
    const big = await wrapServerCommand({
      command: 'bash',
      args: ['-c', 'head -c 1100000 /dev/zero | tr "\\0" x >&2; echo >&2; echo written >&2; sleep 60'],
      captureStderr: true,
    });
    started.push(big);
    const running = spawnLikeTheSdk(big);
    await until(() => (big.stderrTail(10).endsWith('written') ? true : undefined));
    expect(big.alive()).toBe(true);
    expect(big.stderrTail()).toBe('');
    running.kill();
  });

  it('says how the server ended: its exit code or the signal that killed it (known under the guard only)', async () => {
    const ends = async (script: string) => {
      const server = await wrapServerCommand({ command: 'bash', args: ['-c', script], captureStderr: true });
      started.push(server);
      expect(await server.exitStatus()).toBeUndefined();
      const child = spawnLikeTheSdk(server);
      await new Promise((resolve) => child.on('exit', resolve));
      return server.exitStatus(2_000);
    };
    const guarded = (await processGuardStatus()).active;
    expect(await ends('exit 7')).toEqual(guarded ? { code: 7 } : undefined);
    expect(await ends('kill -9 $$')).toEqual(guarded ? { signal: 'SIGKILL' } : undefined);
    expect(await ends('true')).toEqual(guarded ? { code: 0 } : undefined);
  });

  it('knows the pid early, leads its own process group, and stop() ends the whole tree', async () => {
    const file = join(dir, `tree-${mode}`);
    const server = await wrapServerCommand({
      command: 'sh',
      args: ['-c', `sleep 300 & echo $! > ${file}; exec sleep 301`],
    });
    started.push(server);
    expect(server.pid()).toBeUndefined();
    const child = spawnLikeTheSdk(server);
    const pid = await until(() => server.pid());
    expect(pid).toBe(child.pid);
    expect(server.group).toBe(true);
    expect(await pgrp(pid)).toBe(pid);
    expect(server.guarded).toBe((await processGuardStatus()).active);
    const [grandchild] = await pids(file);
    expect(server.alive()).toBe(true);
    await server.stop({ graceMs: 500 });
    expect(await isAlive(grandchild!)).toBe(false);
    expect(await livingInGroup(pid)).toEqual([]);
    expect(server.alive()).toBe(false);
    // the pid file's folder is gone, and a second stop is harmless
    await expect(stat(dirname(server.args.find((a) => a.endsWith('/pid'))!))).rejects.toThrow();
    await server.stop();
  });

  it('a server that ignores TERM is killed after the grace period', async () => {
    const server = await wrapServerCommand({ command: 'sh', args: ['-c', "trap '' TERM; sleep 300 & wait"] });
    started.push(server);
    spawnLikeTheSdk(server);
    const pid = await until(() => server.pid());
    await until(async () => ((await descendants(pid)).length > 0 ? true : undefined));
    await server.stop({ graceMs: 200 });
    expect(await livingInGroup(pid)).toEqual([]);
  });

  it('sees the allowlisted host environment plus what it is given; never LC_SECRET_TOKEN', async () => {
    process.env.LC_SECRET_TOKEN = 'canary';
    process.env.LC_TIME = 'C';
    try {
      const file = join(dir, `env-${mode}`);
      const server = await wrapServerCommand({
        command: 'sh',
        args: ['-c', `env > ${file}.tmp; mv ${file}.tmp ${file}; exec sleep 300`],
        env: { SKILL_SETTING: 'on' },
      });
      started.push(server);
      spawnLikeTheSdk(server);
      await until(() => server.pid());
      const text = await until(async () => (await readFile(file, 'utf8').catch(() => '')) || undefined);
      expect(text).toContain('SKILL_SETTING=on');
      expect(text).toContain('LC_TIME=C');
      expect(text).not.toContain('canary');
      expect(server.env).not.toHaveProperty('LC_SECRET_TOKEN');
    } finally {
      delete process.env.LC_SECRET_TOKEN;
      delete process.env.LC_TIME;
    }
  });

  it('fails with spawn-failed when the command does not exist, and stop() before a start is harmless', async () => {
    await expect(wrapServerCommand({ command: '/nonexistent/server' })).rejects.toMatchObject({
      code: 'spawn-failed',
      message: 'could not start /nonexistent/server: not found (not a file, and not on PATH)',
    });
    const never = await wrapServerCommand({ command: 'sleep', args: ['1'] });
    await never.stop();
    expect(never.pid()).toBeUndefined();
  });

  it('is ended by stopAllProcesses too', async () => {
    const server = await wrapServerCommand({ command: 'sh', args: ['-c', "trap '' TERM; exec sleep 300"] });
    started.push(server);
    spawnLikeTheSdk(server);
    const pid = await until(() => server.pid());
    // Once the shell has become `sleep` (the server itself, or under the guard its helper's child) TERM is ignored;
    // a TERM sent before the trap is set would end it at once, and nothing would be left to kill.
    const comm = (p: number) =>
      readFile(`/proc/${p}/comm`, 'utf8').then(
        (text) => text.trim(),
        () => '',
      );
    await until(async () => {
      const names = await Promise.all([pid, ...(await descendants(pid))].map(comm));
      return names.includes('sleep') ? true : undefined;
    });
    expect(await stopAllProcesses({ graceMs: 200 })).toEqual({ stopped: 1, killed: 1 });
    expect(await livingInGroup(pid)).toEqual([]);
  });
});

describe('a guarded server dies with its parent, even on SIGKILL', { timeout: 60_000 }, () => {
  it('the server and what it started are gone soon after the parent is killed', async () => {
    configureProcessGuard('auto');
    expect((await processGuardStatus()).active).toBe(true);
    const file = join(dir, 'server-tree');
    const body = `
import { spawn } from 'node:child_process';
const server = await entrypoints.wrapServerCommand({ command: 'sh', args: ['-c', ${JSON.stringify(
      `trap '' TERM INT HUP; setsid sleep 300 & echo $! > ${file}; exec sleep 301`,
    )}] });
const child = spawn(server.command, server.args, { env: server.env, stdio: ['pipe', 'pipe', 'ignore'] });
console.log('spawned ' + child.pid);
setInterval(() => {}, 1000);
`;
    const parent = await startParent(dir, body);
    await parent.waitFor('spawned ');
    await pids(file);
    const tree = await descendants(parent.child.pid!);
    expect(tree.length).toBeGreaterThanOrEqual(2);
    parent.child.kill('SIGKILL');
    await parent.exited();
    // The guard notices the parent's death and kills the tree; how soon depends on the machine's load, so the test
    // waits for it (up to 30 s) instead of looking once after a fixed second.
    await until(async () => ((await stillRunning(tree)).length === 0 ? true : undefined), 30_000).catch(
      () => {},
    );
    expect(await stillRunning(tree)).toEqual([]);
  });
});
