import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configureProcessGuard,
  EntrypointError,
  type ProcessGuardMode,
  resolveEntrypoint,
  stopAllProcesses,
} from '../src/index.js';
import { isAlive, livingInGroup, sleepMs, tempDir } from './helpers.js';
import { startParent, stillRunning } from './parent-process.js';

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
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

/** Handles the rejection at once (it comes while the test awaits something else) and hands it over later. */
function rejection(promise: Promise<unknown>): Promise<EntrypointError> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(EntrypointError);
      return error as EntrypointError;
    },
  );
}

describe.each<ProcessGuardMode>(['off', 'auto'])('stopAllProcesses (guard %s)', (mode) => {
  beforeAll(() => configureProcessGuard(mode));

  it('ends a running tool that ignores TERM: SIGTERM, then SIGKILL after the grace period; the call is aborted', async () => {
    const file = join(dir, `stubborn-${mode}`);
    const ep = resolveEntrypoint("bash:trap '' TERM INT HUP; sleep 300 & echo $$ $! > {file}; wait", {
      skillDir: dir,
    });
    const run = rejection(ep.run({ file }, { timeoutMs: 60_000, killGraceMs: 60_000 }));
    const [leader, sleeper] = await pids(file);
    const summary = await stopAllProcesses({ graceMs: 300 });
    expect(summary).toEqual({ stopped: 1, killed: 1 });
    // resolved only once everything is gone: no waiting needed here
    expect(await livingInGroup(leader!)).toEqual([]);
    expect(await isAlive(sleeper!)).toBe(false);
    const error = await run;
    expect(error.code).toBe('aborted');
    expect(error.message).toBe('command was cancelled: every child process is being stopped');
  });

  it('a tree that obeys TERM needs no KILL; several trees at once', async () => {
    const files = [0, 1, 2].map((k) => join(dir, `polite-${mode}-${k}`));
    const ep = resolveEntrypoint('bash:sleep 300 & echo $$ $! > {file}; wait', { skillDir: dir });
    const runs = files.map((file) => rejection(ep.run({ file }, { timeoutMs: 60_000 })));
    const groups = await Promise.all(files.map(pids));
    const summary = await stopAllProcesses({ graceMs: 5_000 });
    expect(summary).toEqual({ stopped: 3, killed: 0 });
    for (const [leader] of groups) expect(await livingInGroup(leader!)).toEqual([]);
    for (const run of runs) expect((await run).code).toBe('aborted');
  });

  it('has nothing to do when nothing runs', async () => {
    await resolveEntrypoint('bash:true', { skillDir: dir }).run({});
    expect(await stopAllProcesses({ graceMs: 100 })).toEqual({ stopped: 0, killed: 0 });
  });

  it('refuses new children while it runs', async () => {
    const file = join(dir, `late-${mode}`);
    const ep = resolveEntrypoint("bash:trap '' TERM; echo $$ > {file}; sleep 300", { skillDir: dir });
    const run = rejection(ep.run({ file }, { timeoutMs: 60_000 }));
    await pids(file);
    const stopping = stopAllProcesses({ graceMs: 500 });
    const late = await rejection(resolveEntrypoint('bash:echo late', { skillDir: dir }).run({}));
    expect(late.code).toBe('aborted');
    await stopping;
    expect((await run).code).toBe('aborted');
    expect((await resolveEntrypoint('bash:echo again', { skillDir: dir }).run({})).output).toBe('again\n');
  });
});

describe('stopAllProcesses and what a finished tool left behind (no guard)', () => {
  it('ends a background process that ignores TERM and outlived its tool', async () => {
    configureProcessGuard('off');
    const file = join(dir, 'leftover');
    const ep = resolveEntrypoint(
      "bash:trap '' TERM; sleep 300 >/dev/null 2>&1 & echo $$ $! > {file}; echo done",
      {
        skillDir: dir,
      },
    );
    // a long grace: the group's own KILL would come only after a minute
    const result = await ep.run({ file }, { killGraceMs: 60_000 });
    expect(result.output).toBe('done\n');
    const [leader, sleeper] = await pids(file);
    expect(await isAlive(sleeper!)).toBe(true);
    expect(await stopAllProcesses({ graceMs: 200 })).toEqual({ stopped: 1, killed: 1 });
    expect(await livingInGroup(leader!)).toEqual([]);
  });
});

describe('an application that stops everything on SIGTERM before it exits', { timeout: 60_000 }, () => {
  it.each<ProcessGuardMode>(['off', 'auto'])(
    'leaves no process behind (guard %s), even one that ignores TERM/INT/HUP',
    async (mode) => {
      const file = join(dir, `app-${mode}`);
      const body = `
process.on('SIGTERM', async () => {
  const summary = await entrypoints.stopAllProcesses({ graceMs: 300 });
  console.log('stopped ' + JSON.stringify(summary));
  process.exit(143);
});
const ep = entrypoints.resolveEntrypoint("bash:trap '' TERM INT HUP; sleep 300 & echo $$ $! > {file}; sleep 301", { skillDir: process.cwd() });
ep.run({ file: ${JSON.stringify(file)} }, { timeoutMs: 600000 }).catch((e) => console.log('tool ' + e.code));
console.log('running');
setInterval(() => {}, 1000);
`;
      const parent = await startParent(dir, body, { env: { BIRDIE_PROCESS_GUARD: mode } });
      await parent.waitFor('running');
      const tree = await pids(file);
      parent.child.kill('SIGTERM');
      const exit = await parent.exited();
      expect(exit).toBe(143);
      expect(parent.output()).toContain('stopped {"stopped":1,"killed":1}');
      expect(parent.output()).toContain('tool aborted');
      expect(await stillRunning(tree)).toEqual([]);
      expect(await livingInGroup(tree[0]!)).toEqual([]);
    },
  );
});
