import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { holdWriteLock, type LockHolder } from './helpers/db-lock.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { Terminal } from './helpers/pty.js';
import { jsonLines, type ShownMessage, script, sessionIdOf } from './helpers/sessions.js';

// Exploratory report: with the database held locked by another process (a script that ran `BEGIN EXCLUSIVE` and
// slept 40 s), `birdie run "hi"` waited all 40 s and then answered; held longer, it failed after ~50 s with "the
// database stayed locked by another process" — no file, no advice. Each of the 8 retries waited the whole 5 s busy
// timeout again. The holder here lets go only when the test says so: the CLI must give up first, with the file named,
// the reason and what to do, while the holder still runs.

let box: Sandbox;
let holder: LockHolder | undefined;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await holder?.release();
  holder = undefined;
  await box.cleanup();
});

const run = async (args: string[], replies: unknown[] = [{ text: 'Hello.' }]) => {
  const env = await script(box.dir.path, `script-${Math.random().toString(36).slice(2)}`, replies);
  return birdie(args, { env: { ...box.env, ...env }, cwd: box.cwd, timeoutMs: 120_000 });
};

/** The sentence every command gives for a file another process keeps locked. */
function expectLockedError(stderr: string, file: string): void {
  expect(stderr).toContain(file);
  expect(stderr).toMatch(/locked by another process/);
  // What to do: find the other program and let it finish, then try again.
  expect(stderr).toMatch(/try again/);
  expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe('a database another process keeps locked', { timeout: 180_000 }, () => {
  it('birdie run gives up with an error naming the file while the holder still holds it; nothing is lost', async () => {
    const first = await run(['run', '--json', 'hello']);
    expect(first.code).toBe(0);
    const id = sessionIdOf(first.stdout);
    const file = join(box.home, 'birdie.db');

    holder = await holdWriteLock(file);
    const fresh = await run(['run', 'hi']);
    expect(holder.alive(), 'the CLI waited for the holder to let go').toBe(true);
    expect(fresh.code).toBe(1);
    expect(fresh.stdout).toBe('');
    expectLockedError(fresh.stderr, file);

    const more = await run(['run', '--session-id', id, 'more']);
    expect(holder.alive(), 'the CLI waited for the holder to let go').toBe(true);
    expect(more.code).toBe(1);
    expectLockedError(more.stderr, file);

    // Reading needs no write lock: listing works while it is held.
    const listed = await run(['sessions', 'list', '--json']);
    expect(listed.code).toBe(0);
    expect(jsonLines<{ id: string }>(listed.stdout).map((s) => s.id)).toEqual([id]);
    expect(holder.alive()).toBe(true);

    await holder.release();
    holder = undefined;

    // Nothing half-made: no new session, the old one as it was, and both commands work now.
    const shown = await run(['sessions', 'show', id, '--json']);
    expect(jsonLines<ShownMessage>(shown.stdout).map((m) => m.content)).toEqual(['hello', 'Hello.']);
    const again = await run(['run', '--session-id', id, 'more'], [{ text: 'More.' }]);
    expect(again).toMatchObject({ code: 0, stdout: 'More.\n' });
    const doctor = await run(['doctor', '--json']);
    expect(JSON.parse(doctor.stdout)).toMatchObject({ ok: true, damaged: [] });
  });

  it('birdie sessions rename and delete give up with the same error while the holder still holds it', async () => {
    const first = await run(['run', '--json', 'hello']);
    const id = sessionIdOf(first.stdout);
    const file = join(box.home, 'birdie.db');

    holder = await holdWriteLock(file);
    const renamed = await run(['sessions', 'rename', id, 'new title']);
    expect(holder.alive()).toBe(true);
    expect(renamed.code).toBe(1);
    expectLockedError(renamed.stderr, file);

    const deleted = await run(['sessions', 'delete', id]);
    expect(holder.alive()).toBe(true);
    expect(deleted.code).toBe(1);
    expectLockedError(deleted.stderr, file);

    await holder.release();
    holder = undefined;
    const listed = await run(['sessions', 'list', '--json']);
    expect(jsonLines<{ id: string; title?: string }>(listed.stdout)).toMatchObject([{ id }]);
  });

  it('the REPL, whose start makes a session, leaves with the same error and its advice, exit 1', async () => {
    const first = await run(['run', '--json', 'hello']);
    expect(first.code).toBe(0);
    const file = join(box.home, 'birdie.db');

    holder = await holdWriteLock(file);
    const env = await script(box.dir.path, 'repl', [{ text: 'Hello.' }]);
    const t = new Terminal([], { env: { ...box.env, ...env }, cwd: box.cwd, cols: 400 });
    try {
      expect(await t.exited).toBe(1);
      expect(holder.alive(), 'the REPL waited for the holder to let go').toBe(true);
      expectLockedError(t.text, file);
    } finally {
      t.kill();
    }
  });
});
