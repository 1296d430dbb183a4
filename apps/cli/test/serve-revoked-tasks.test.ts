import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore, type ScheduledTask } from '@birdie/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { startWorker, type Worker } from './helpers/serve.js';

// Security report: an admin revoked every API token of a user of `birdie serve`, and that user's scheduled tasks went
// on running under the server's scheduler with their grants: the revoked user kept acting on the shared server. A
// revoked token is now kept (marked revoked), so the server tells a user whose access was revoked (their tasks' firings
// are logged `rejected`, nothing runs) from a user who never had a token (a chat channel's, the local one: theirs run).

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

let box: Sandbox;
let worker: Worker | undefined;
let root = '';
type Made = { id: string; token: string };
const tokens: { carol: Made[]; dave: Made[] } = { carol: [], dave: [] };
const taskIds = { carol: 0, dave: 0, erin: 0 };

/** A token of `user` made with `birdie tokens create --json`: its id (to revoke it) and the token. */
async function makeToken(user: string): Promise<{ id: string; token: string }> {
  const made = await birdie(['tokens', 'create', '--user', user, '--json'], { env: box.env, cwd: box.cwd });
  expect(made.code, made.stderr).toBe(0);
  return JSON.parse(made.stdout) as { id: string; token: string };
}

/** Polls the store until the task is no longer active (bounded: a generous wait, not a timing). */
async function untilEnded(user: string, id: number): Promise<ScheduledTask> {
  for (let i = 0; i < 360; i++) {
    const store = openStore({ home: box.home });
    try {
      const task = (await store.tasks.list(user, { all: true })).find((t) => t.id === id);
      if (task && task.status !== 'active') return task;
    } finally {
      store.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`task ${id} of ${user} still active after three minutes:\n${worker?.process.stderr()}`);
}

beforeAll(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
  root = join(box.dir.path, 'workspaces');
  const replies = ['carol', 'dave', 'erin'].map((user) => ({ match: `^run ${user}`, text: `${user} ran` }));
  const script = join(box.dir.path, 'script.json');
  await writeFile(script, JSON.stringify({ replies }));
  // carol has one token, dave two; erin never had one (a chat channel's user).
  tokens.carol = [await makeToken('carol')];
  tokens.dave = [await makeToken('dave'), await makeToken('dave')];
  // Each has a one-time task scheduled through the server (from a server session of theirs, as the API's
  // schedule_task stores it), already due: the server runs it as soon as it starts. No clock decides the order: the
  // server is started only after the revocations below.
  const at = new Date(Date.now() - 1_000);
  const store = openStore({ home: box.home });
  try {
    for (const user of ['carol', 'dave', 'erin'] as const)
      taskIds[user] = (
        await store.tasks.create({
          userId: user,
          prompt: `run ${user}`,
          at,
          originSession: `${user}~2026-01-01_1`,
        })
      ).id;
  } finally {
    store.close();
  }
  // The admin revokes carol's only token and one of dave's two.
  for (const id of [tokens.carol[0]!.id, tokens.dave[0]!.id]) {
    const revoked = await birdie(['tokens', 'revoke', id], { env: box.env, cwd: box.cwd });
    expect(revoked.code, revoked.stderr).toBe(0);
  }
  worker = await startWorker(['--grace', '1', '--workspaces', root], {
    env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
    cwd: box.cwd,
    home: box.home,
  });
}, 120_000);

afterAll(async () => {
  worker?.process.kill('SIGKILL');
  await box?.cleanup();
});

describe('birdie serve and a user whose every token was revoked', { timeout: 240_000 }, () => {
  it("refuses that user's task: its firing is logged rejected, saying why, and nothing runs", async () => {
    const task = await untilEnded('carol', taskIds.carol);
    expect(task.status, worker!.process.stderr()).toBe('failed');
    expect(task.error).toMatch(/^rejected: .*carol.*revoked/);
    const store = openStore({ home: box.home });
    try {
      const runs = (await store.runs.list({ userId: 'carol' })).filter((r) =>
        r.trigger?.startsWith(`task ${taskIds.carol} `),
      );
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: 'rejected', userId: 'carol' });
      expect(runs[0]!.error).toMatch(/revoked/);
      // Nothing ran: no model answer, no tool call.
      expect(runs[0]!.answer).toBeUndefined();
      expect(runs[0]!.toolCalls).toEqual([]);
    } finally {
      store.close();
    }
    // The log says so (its line is written just after the task is marked failed).
    await worker!.process.waitFor(
      'stderr',
      new RegExp(`task ${taskIds.carol}\\b[^\\n]*rejected[^\\n]*revoked`),
    );
  });

  it('still runs the task of a user with one revoked token and one live', async () => {
    expect(await untilEnded('dave', taskIds.dave)).toMatchObject({ status: 'done' });
  });

  it('still runs the task of a user who never had a token', async () => {
    expect(await untilEnded('erin', taskIds.erin)).toMatchObject({ status: 'done' });
  });

  it('a revoked token no longer authenticates, and tokens list leaves it out', async () => {
    const asCarol = await worker!.request('/v1/tasks', { token: tokens.carol[0]!.token });
    expect(asCarol.status).toBe(401);
    const listed = await birdie(['tokens', 'list', '--json'], { env: box.env, cwd: box.cwd });
    expect(listed.code, listed.stderr).toBe(0);
    const ids = listed.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id);
    expect(ids).toEqual([tokens.dave[1]!.id]);
  });

  it('tokens list --revoked shows the revoked tokens, each with when it was revoked', async () => {
    const listed = await birdie(['tokens', 'list', '--revoked', '--json'], { env: box.env, cwd: box.cwd });
    expect(listed.code, listed.stderr).toBe(0);
    const revoked = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; userId: string; revokedAt?: string });
    expect(revoked.map((t) => [t.id, t.userId])).toEqual([
      [tokens.carol[0]!.id, 'carol'],
      [tokens.dave[0]!.id, 'dave'],
    ]);
    for (const t of revoked) expect(Number.isNaN(Date.parse(t.revokedAt ?? ''))).toBe(false);
    // One user's, as a table with the time of each revocation.
    const daves = await birdie(['tokens', 'list', '--revoked', '--user', 'dave'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(daves.code, daves.stderr).toBe(0);
    expect(daves.stdout).toMatch(/REVOKED/);
    expect(daves.stdout).toContain(revoked[1]!.revokedAt!);
    expect(daves.stdout).not.toContain(tokens.carol[0]!.id);
    expect(daves.stdout).not.toContain(tokens.dave[1]!.id);
    // Nobody's revoked: said so.
    const none = await birdie(['tokens', 'list', '--revoked', '--user', 'erin'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(none.stdout.trim()).toBe('No revoked tokens.');
  });
});
