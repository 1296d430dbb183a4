import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openPostgresStore } from '@birdie/store-postgres';
import { type PostgresServer, startPostgres } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie, startBirdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { makeToken, type StreamEvent, startWorker, streamEvents, type Worker } from './helpers/serve.js';
import { until } from './helpers/until.js';

// Exploratory report (ops) item 5: a task scheduled through `birdie serve`'s API was never run by the server (GET
// /v1/tasks showed it `active` forever); only an operator's `birdie start --user NAME` ran it, in the operator's
// working folder with the operator's settings. Now the server runs its users' due tasks, each in the user's
// workspace under serve's policy, once across the workers of one database; `birdie start` leaves them to it.

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');
const SCHEMA = `serve_tasks_${process.pid}`;

let pg: PostgresServer;
let box: Sandbox;
let root: string;
let workers: Worker[] = [];
let token = '';

const script = (at: string) => ({
  replies: [
    { match: '^sched once', tool_calls: [{ name: 'schedule_task', args: { prompt: 'taskwrite now', at } }] },
    { match: '^sched once', text: 'scheduled' },
    {
      match: '^sched hourly',
      tool_calls: [{ name: 'schedule_task', args: { prompt: 'hourly look', every: '1h' } }],
    },
    { match: '^sched hourly', text: 'scheduled hourly' },
    // Whichever worker runs the task answers it (each reply is used once per worker).
    { match: '^taskwrite', tool_calls: [{ name: 'list_dir', args: { path: '.' } }] },
    { match: '^taskwrite', text: 'task done' },
  ],
});

beforeAll(async () => {
  pg = await startPostgres();
  box = await sandbox({
    BIRDIE_BUNDLED_SKILLS: BUNDLED,
    BIRDIE_DATABASE_URL: pg.url,
    BIRDIE_DATABASE_SCHEMA: SCHEMA,
  });
  root = join(box.dir.path, 'workspaces');
  await mkdir(join(root, 'alice'), { recursive: true, mode: 0o700 });
  await writeFile(join(root, 'alice', 'alice-file.txt'), 'hers\n');
  // The server's own working folder: a task of alice's must not see it.
  await writeFile(join(box.cwd, 'server-cwd-file.txt'), 'the operator\n');
  // Due 20 s from now: scheduled before that, it runs then; scheduled after, at once. Either holds only while the
  // scheduling comes within AT_GRACE_MS (60 s) of the due time, so the margin for a slow start of the token and the
  // two workers on a loaded machine is 80 s, not 65.
  const file = join(box.dir.path, 'script.json');
  await writeFile(file, JSON.stringify(script(new Date(Date.now() + 20_000).toISOString())));
  token = await makeToken('alice', { env: box.env, cwd: box.cwd });
  // Two workers of one database, as two machines: a due task runs on one of them, once.
  workers = await Promise.all(
    ['w1', 'w2'].map((name) =>
      startWorker(['--grace', '1', '--workspaces', root], {
        env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: file },
        cwd: box.cwd,
        home: join(box.dir.path, `home-${name}`),
      }),
    ),
  );
}, 180_000);

afterAll(async () => {
  for (const w of workers) w.process.kill('SIGKILL');
  await box?.cleanup();
  await pg?.stop();
});

/** Alice's API session schedules a task (`prompt` picks which): she approves schedule_task; the task's id. */
async function aliceSchedules(w: Worker, prompt: string): Promise<number> {
  const made = await w.request('/v1/sessions', { token, json: { enable: ['filesystem', 'scheduler'] } });
  expect(made.status).toBe(201);
  const { id } = (await made.json()) as { id: string };
  const asked = await streamEvents(await w.request(`/v1/sessions/${id}/turns`, { token, json: { prompt } }));
  const last = asked.at(-1)!;
  expect(last.type).toBe('approval-request');
  const [request] = last.requests as Array<{ id: string; tool: string }>;
  expect(request!.tool).toBe('schedule_task');
  const rest = await streamEvents(
    await w.request(`/v1/sessions/${id}/approvals`, {
      token,
      json: { decisions: { [request!.id]: { type: 'approve' } } },
    }),
  );
  const end = rest.find((e: StreamEvent) => e.type === 'tool-end');
  expect(end).toMatchObject({ name: 'schedule_task', ok: true });
  const { tasks } = (await (await w.request('/v1/tasks', { token })).json()) as {
    tasks: Array<{ id: number }>;
  };
  const task = tasks.at(-1);
  expect(task).toBeDefined();
  // Reported by an operator: the answer told an API user that `birdie start` runs it and `birdie tasks cancel`
  // stops it; under `birdie serve` the server runs it, and the API cancels it.
  expect(String(end!.output)).toContain(`Scheduled task [${task!.id}]`);
  expect(String(end!.output)).toContain(`DELETE /v1/tasks/${task!.id}`);
  expect(String(end!.output)).not.toContain('birdie start');
  return task!.id;
}

/** Polls GET /v1/tasks?all=true until the task is no longer active (bounded: a generous wait, not a timing). */
async function untilEnded(w: Worker, id: number) {
  for (let i = 0; i < 240; i++) {
    const { tasks } = (await (await w.request('/v1/tasks?all=true', { token })).json()) as {
      tasks: Array<{ id: number; status: string; error?: string }>;
    };
    const task = tasks.find((t) => t.id === id);
    if (task && task.status !== 'active') return task;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`task ${id} still active after two minutes`);
}

describe("birdie serve runs its users' scheduled tasks", { timeout: 240_000 }, () => {
  it("runs a task scheduled through the API, in the user's workspace, once across two workers", async () => {
    const id = await aliceSchedules(workers[0]!, 'sched once');
    // Shown run in GET /v1/tasks: a one-time task is done after its run.
    expect(await untilEnded(workers[1]!, id)).toMatchObject({ status: 'done', endedAt: expect.any(String) });

    // The server's log says so, as birdie start's does (on the worker that ran it). The task is finished in the store
    // before the run's end is logged: the line may follow the status by a moment.
    const logs = () => workers.map((w) => w.process.stderr()).join('');
    const ended = new RegExp(`birdie serve: end task ${id} ok run \\d+`);
    await until('the run’s end logged', () => ended.test(logs()), { context: logs });
    const store = await openPostgresStore({ url: pg.url, schema: SCHEMA });
    try {
      const runs = (await store.runs.list({ userId: 'alice' })).filter((r) =>
        r.trigger?.startsWith(`task ${id} `),
      );
      // Once: the workers claim the due time through the store, as `birdie start`'s do.
      expect(runs).toHaveLength(1);
      const [run] = runs;
      expect(run).toMatchObject({ status: 'ok', answer: 'task done', userId: 'alice' });
      const [call] = run!.toolCalls;
      expect(call).toMatchObject({ name: 'list_dir', status: 'ok' });
      // Logged like every unattended run; its list_dir saw alice's workspace, not the server's working folder.
      const shown = await birdie(['logs', 'show', String(run!.id), '--user', 'alice', '--json'], {
        env: box.env,
        cwd: box.cwd,
      });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain('alice-file.txt');
      expect(shown.stdout).not.toContain('server-cwd-file.txt');
    } finally {
      await store.close();
    }
  });

  it('birdie start --user alice leaves tasks scheduled through the server to the server', async () => {
    const id = await aliceSchedules(workers[0]!, 'sched hourly');
    for (const w of workers) w.process.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.process.exited));
    // The operator's own folder, with a file alice's task must never see.
    const operator = join(box.dir.path, 'operator');
    await mkdir(operator, { recursive: true });
    await writeFile(join(operator, 'operator_notes.txt'), 'operator private notes\n');
    const start = startBirdie(['start', '--json', '--user', 'alice'], {
      env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: join(box.dir.path, 'script.json') },
      cwd: operator,
      timeoutMs: 60_000,
    });
    // It says why it does not take the task on: the server runs it, in alice's workspace.
    await start.waitFor('stderr', new RegExp(`task ${id}\\b[^\\n]*birdie serve`), 30_000);
    start.kill('SIGTERM');
    const finished = await start.exited;
    expect(finished.code, finished.stderr).toBe(0);
    expect(finished.stdout).not.toContain(`"agent":"task ${id}"`);
  });
});
