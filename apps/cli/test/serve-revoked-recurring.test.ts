import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { makeRevokedToken, startWorker, type Worker } from './helpers/serve.js';
import { taskRuns } from './helpers/task-runs.js';
import { until as poll } from './helpers/until.js';

// Report: a recurring task of a user whose every API token was revoked logged a new `rejected` run at every firing,
// forever (a task every minute: 1,440 rejected runs a day in the run log and `birdie logs`). Now its first refused
// firing is logged once and birdie serve holds the task (it is not fired) while its user stays revoked; `birdie tasks
// list` says why; a new token of theirs lifts the hold and the task runs again.

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

let box: Sandbox;
let worker: Worker | undefined;
const ids = { carol: 0, erin: 0 };

const runsOf = (user: string, task: number) => taskRuns(box.home, user, task);
const until = (what: string, done: () => Promise<boolean>) =>
  poll(what, done, { context: () => worker?.process.stderr() ?? '' });

beforeAll(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
  const replies = [
    { match: '^run carol', text: 'carol ran' },
    ...Array.from({ length: 300 }, () => ({ match: '^run erin', text: 'erin ran' })),
  ];
  const script = join(box.dir.path, 'script.json');
  await writeFile(script, JSON.stringify({ replies }));
  // carol had one token, revoked; erin never had one (a chat channel's user), her task the witness that time passes.
  await makeRevokedToken('carol', { env: box.env, cwd: box.cwd });
  // Both tasks every second, scheduled through the server (each from a server session of its user).
  const store = openStore({ home: box.home });
  try {
    for (const user of ['carol', 'erin'] as const)
      ids[user] = (
        await store.tasks.create({
          userId: user,
          prompt: `run ${user}`,
          every: 1,
          originSession: `${user}~2026-01-01_1`,
        })
      ).id;
  } finally {
    store.close();
  }
  worker = await startWorker(['--grace', '1', '--workspaces', join(box.dir.path, 'workspaces')], {
    env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
    cwd: box.cwd,
    home: box.home,
  });
}, 120_000);

afterAll(async () => {
  worker?.process.kill('SIGKILL');
  await box?.cleanup();
});

describe('birdie serve and a recurring task of a user whose every token was revoked', {
  timeout: 240_000,
}, () => {
  it('logs its first refused firing once, then holds it: later due times log nothing', async () => {
    await until('a firing of carol refused', async () => (await runsOf('carol', ids.carol)).length > 0);
    const [first] = await runsOf('carol', ids.carol);
    // Erin's task, every second as carol's, ran four more times after carol's refusal: carol's came due again.
    await until(
      "erin's task ran four times since",
      async () => (await runsOf('erin', ids.erin)).filter((r) => r.id > first!.id).length >= 4,
    );
    const runs = await runsOf('carol', ids.carol);
    expect(runs, worker!.process.stderr()).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'rejected', userId: 'carol' });
    expect(runs[0]!.error).toMatch(/revoked/);
    // The log says once that it is held, and why.
    const line = `task ${ids.carol}\\b[^\\n]*held[^\\n]*revoked`;
    await worker!.process.waitFor('stderr', new RegExp(line));
    const held = worker!.process.stderr().match(new RegExp(line, 'g'));
    expect(held, worker!.process.stderr()).toHaveLength(1);
  });

  it('tasks list shows it held, saying why; erin’s task is not', async () => {
    const listed = await birdie(['tasks', 'list', '--user', 'carol', '--json'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(listed.code, listed.stderr).toBe(0);
    const task = JSON.parse(listed.stdout.trim()) as { id: number; status: string; held?: string };
    expect(task).toMatchObject({ id: ids.carol, status: 'active' });
    expect(task.held).toMatch(/revoked.*birdie tokens create --user carol/);
    const table = await birdie(['tasks', 'list', '--user', 'carol'], { env: box.env, cwd: box.cwd });
    expect(table.stdout).toMatch(new RegExp(`${ids.carol}\\s+held`));
    expect(table.stderr).toMatch(new RegExp(`task ${ids.carol}[^\\n]*revoked`));
    const erin = await birdie(['tasks', 'list', '--user', 'erin', '--json'], { env: box.env, cwd: box.cwd });
    expect(JSON.parse(erin.stdout.trim())).not.toHaveProperty('held');
  });

  it('runs it again once the user has a token again', async () => {
    const made = await birdie(['tokens', 'create', '--user', 'carol'], { env: box.env, cwd: box.cwd });
    expect(made.code, made.stderr).toBe(0);
    await until('a run of carol’s task after her new token', async () =>
      (await runsOf('carol', ids.carol)).some((r) => r.status === 'ok'),
    );
    const runs = await runsOf('carol', ids.carol);
    expect(runs.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect(runs.find((r) => r.status === 'ok')!.answer).toBe('carol ran');
  });
});
