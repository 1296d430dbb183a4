import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore, type ScheduledTask } from '@birdie/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { type StreamEvent, startWorker, streamEvents, type Worker } from './helpers/serve.js';

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

/** `user`'s API session schedules their one-time task (`sched USER`), approving schedule_task; the task's id. */
async function schedules(w: Worker, user: string, token: string): Promise<number> {
  const made = await w.request('/v1/sessions', { token, json: { enable: ['scheduler'] } });
  expect(made.status).toBe(201);
  const { id } = (await made.json()) as { id: string };
  const asked = await streamEvents(
    await w.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: `sched ${user}` } }),
  );
  const [request] = asked.at(-1)!.requests as Array<{ id: string; tool: string }>;
  expect(request!.tool).toBe('schedule_task');
  const rest = await streamEvents(
    await w.request(`/v1/sessions/${id}/approvals`, {
      token,
      json: { decisions: { [request!.id]: { type: 'approve' } } },
    }),
  );
  expect(rest.find((e: StreamEvent) => e.type === 'tool-end')).toMatchObject({
    name: 'schedule_task',
    ok: true,
  });
  const { tasks } = (await (await w.request('/v1/tasks', { token })).json()) as {
    tasks: Array<{ id: number }>;
  };
  return tasks.at(-1)!.id;
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
  // Every task is due 90 s from now: scheduled, and the tokens revoked, before then (setup takes ~15 s here; the
  // margin is for a loaded machine, and the assertion below says so rather than pass for the wrong reason).
  const at = new Date(Date.now() + 90_000).toISOString();
  const replies = ['carol', 'dave'].flatMap((user) => [
    { match: `^sched ${user}`, tool_calls: [{ name: 'schedule_task', args: { prompt: `run ${user}`, at } }] },
    { match: `^sched ${user}`, text: 'scheduled' },
    { match: `^run ${user}`, text: `${user} ran` },
  ]);
  replies.push({ match: '^run erin', text: 'erin ran' });
  const script = join(box.dir.path, 'script.json');
  await writeFile(script, JSON.stringify({ replies }));
  // carol has one token, dave two; erin never had one (a chat channel's user: her task is in the store as the
  // server's, scheduled from her server session).
  tokens.carol = [await makeToken('carol')];
  tokens.dave = [await makeToken('dave'), await makeToken('dave')];
  const store = openStore({ home: box.home });
  try {
    taskIds.erin = (
      await store.tasks.create({
        userId: 'erin',
        prompt: 'run erin',
        at: new Date(at),
        originSession: 'erin~2026-01-01_1',
      })
    ).id;
  } finally {
    store.close();
  }
  worker = await startWorker(['--grace', '1', '--workspaces', root], {
    env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
    cwd: box.cwd,
    home: box.home,
  });
  taskIds.carol = await schedules(worker, 'carol', tokens.carol[0]!.token);
  taskIds.dave = await schedules(worker, 'dave', tokens.dave[0]!.token);
  // The admin revokes carol's only token and one of dave's two.
  for (const id of [tokens.carol[0]!.id, tokens.dave[0]!.id]) {
    const revoked = await birdie(['tokens', 'revoke', id], { env: box.env, cwd: box.cwd });
    expect(revoked.code, revoked.stderr).toBe(0);
  }
  // The revocations came before the tasks were due (else this test would prove nothing).
  expect(Date.now()).toBeLessThan(new Date(at).getTime());
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
    expect(worker!.process.stderr()).toMatch(
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
});
