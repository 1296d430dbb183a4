import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox, scripted } from './helpers/env.js';

// Reported: `birdie run --session-id "" hi` (a script's empty "$SID") silently started a new session, and
// `birdie run --wait 86401 hi` failed with exit 1 and the store's "waitMs must be between 0 and 86400000" after it had
// made an empty session. Both are usage errors (exit 2) now, said before any session is made.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[]) =>
  birdie(args, { env: { ...box.env, ...scripted('demo.json') }, cwd: box.cwd, timeoutMs: 60_000 });
const sessionCount = async () => {
  const list = await cli(['sessions', 'list', '--json']);
  expect(list.code, list.stderr).toBe(0);
  return list.stdout.trim() === '' ? 0 : list.stdout.trim().split('\n').length;
};

describe('birdie run with a session id or --wait it cannot use', { timeout: 90_000 }, () => {
  it('an empty --session-id is an invalid id, not a new session', async () => {
    for (const args of [
      ['run', '--session-id', '', 'hi'],
      ['run', '--session-id=', 'hi'],
    ]) {
      const run = await cli(args);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('invalid session id ""');
    }
    expect(await sessionCount()).toBe(0);
  });

  it('--wait over a day says so, exit 2, and makes no session', async () => {
    for (const args of [
      ['run', '--wait', '86401', 'hi'],
      ['run', '--wait', '86401', '--json', 'hi'],
    ]) {
      const run = await cli(args);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('--wait must be at most 86400 seconds (a day), got "86401"');
    }
    expect(await sessionCount()).toBe(0);
    expect((await cli(['run', '--wait', '86400', 'hi'])).code).toBe(0);
  });
});
