import { openStore } from '@birdie/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { makeRevokedToken } from './helpers/serve.js';

// `birdie tasks list` says `held` of a task `birdie serve` no longer fires (its user's every API token was revoked and
// the server refused it once). `birdie serve` fires only tasks scheduled through a server: a task scheduled in the
// REPL or `birdie run` is `birdie start`'s, which goes on firing it whatever the user's tokens, so it is never held,
// even when one of its firings was refused since (an approval nobody could answer).

let box: Sandbox;
const ids = { local: 0, server: 0 };

beforeAll(async () => {
  box = await sandbox();
  await makeRevokedToken('gina', { env: box.env, cwd: box.cwd });
  // After the revocation: a firing of each task refused (logged `rejected`, as the unattended runners log it).
  const store = openStore({ home: box.home });
  try {
    const session = await store.sessions.create('gina');
    ids.local = (
      await store.tasks.create({ userId: 'gina', prompt: 'tidy', every: 3600, originSession: session.id })
    ).id;
    ids.server = (
      await store.tasks.create({
        userId: 'gina',
        prompt: 'tidy',
        every: 3600,
        originSession: 'gina~2026-01-01_1',
      })
    ).id;
    for (const id of [ids.local, ids.server]) {
      const run = await store.runs.start({
        sessionId: session.id,
        userId: 'gina',
        trigger: `task ${id} (every 1h)`,
      });
      await store.runs.finish(run, { status: 'rejected', error: 'refused' });
    }
  } finally {
    store.close();
  }
});

afterAll(async () => {
  await box?.cleanup();
});

describe('birdie tasks list and held tasks', { timeout: 120_000 }, () => {
  it('holds only a task scheduled through a server: a local one is birdie start’s and still fires', async () => {
    const listed = await birdie(['tasks', 'list', '--user', 'gina', '--json'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(listed.code, listed.stderr).toBe(0);
    const tasks = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; held?: string });
    expect(tasks.find((t) => t.id === ids.server)?.held).toMatch(/revoked/);
    expect(tasks.find((t) => t.id === ids.local)).not.toHaveProperty('held');
  });
});
