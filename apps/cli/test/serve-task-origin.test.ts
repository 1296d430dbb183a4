import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBirdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { makeToken, type StreamEvent, startWorker, streamEvents, type Worker } from './helpers/serve.js';
import { until } from './helpers/until.js';

// Review of the server's tasks: a task scheduled through `birdie serve` was known as the server's only through the run
// that scheduled it. Deleting the session deleted that run, and with it the task's origin: the server stopped running
// the task, and `birdie start --user alice` ran it in the operator's folder with the operator's settings. The task now
// keeps the session it was scheduled from.

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

let box: Sandbox;
let root: string;
let worker: Worker | undefined;
let token = '';
let scriptFile = '';

beforeAll(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
  root = join(box.dir.path, 'workspaces');
  await mkdir(join(root, 'alice'), { recursive: true, mode: 0o700 });
  await writeFile(join(root, 'alice', 'alice-file.txt'), 'hers\n');
  scriptFile = join(box.dir.path, 'script.json');
  // The one-time task is due 30 s after this (the server reads the script when it starts): it is scheduled and its
  // session deleted before that, or, on a slow machine, after, when it runs at once (within the 60 s grace).
  await writeScript(new Date(Date.now() + 30_000).toISOString());
  token = await makeToken('alice', { env: box.env, cwd: box.cwd });
  worker = await startServe();
}, 120_000);

afterAll(async () => {
  worker?.process.kill('SIGKILL');
  await box?.cleanup();
});

/** The model's script, with the one-time task's due time. */
async function writeScript(at: string) {
  const script = {
    replies: [
      { match: '^sched once', tool_calls: [{ name: 'schedule_task', args: { prompt: 'taskwrite now', at } }] },
      { match: '^sched once', text: 'scheduled' },
      {
        match: '^sched hourly',
        tool_calls: [{ name: 'schedule_task', args: { prompt: 'hourly look', every: '1h' } }],
      },
      { match: '^sched hourly', text: 'scheduled hourly' },
      { match: '^taskwrite', tool_calls: [{ name: 'list_dir', args: { path: '.' } }] },
      { match: '^taskwrite', text: 'task done' },
      { match: '^hourly', text: 'looked' },
    ],
  };
  await writeFile(scriptFile, JSON.stringify(script));
}

function startServe(): Promise<Worker> {
  return startWorker(['--grace', '1', '--workspaces', root], {
    env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: scriptFile },
    cwd: box.cwd,
    home: box.home,
  });
}

/** Alice's API session schedules a task and is then deleted; the task's id. */
async function scheduleThenDeleteSession(w: Worker, prompt: string): Promise<number> {
  const made = await w.request('/v1/sessions', { token, json: { enable: ['filesystem', 'scheduler'] } });
  expect(made.status).toBe(201);
  const { id } = (await made.json()) as { id: string };
  const asked = await streamEvents(await w.request(`/v1/sessions/${id}/turns`, { token, json: { prompt } }));
  const [request] = asked.at(-1)!.requests as Array<{ id: string; tool: string }>;
  expect(request!.tool).toBe('schedule_task');
  const rest = await streamEvents(
    await w.request(`/v1/sessions/${id}/approvals`, {
      token,
      json: { decisions: { [request!.id]: { type: 'approve' } } },
    }),
  );
  expect(rest.find((e: StreamEvent) => e.type === 'tool-end')).toMatchObject({ name: 'schedule_task', ok: true });
  const { tasks } = (await (await w.request('/v1/tasks', { token })).json()) as { tasks: Array<{ id: number }> };
  const deleted = await w.request(`/v1/sessions/${id}`, { token, method: 'DELETE' });
  expect(deleted.status, await deleted.text()).toBeLessThan(300);
  return tasks.at(-1)!.id;
}

describe('a task scheduled through birdie serve stays the server’s after its session is deleted', {
  timeout: 240_000,
}, () => {
  it('the server still runs it, in alice’s workspace', async () => {
    const id = await scheduleThenDeleteSession(worker!, 'sched once');
    let status = 'active';
    for (let i = 0; i < 240 && status === 'active'; i++) {
      const { tasks } = (await (await worker!.request('/v1/tasks?all=true', { token })).json()) as {
        tasks: Array<{ id: number; status: string }>;
      };
      status = tasks.find((t) => t.id === id)?.status ?? 'missing';
      if (status === 'active') await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(status, worker!.process.stderr()).toBe('done');
    // The task is finished in the store before the run's end is logged: the line may follow the status by a moment.
    const ended = new RegExp(`birdie serve: end task ${id} ok run \\d+`);
    await until('the run’s end logged', () => ended.test(worker!.process.stderr()), {
      context: () => worker!.process.stderr(),
    });
  });

  it('birdie start --user alice still leaves it to the server', async () => {
    const id = await scheduleThenDeleteSession(worker!, 'sched hourly');
    worker!.process.kill('SIGTERM');
    await worker!.process.exited;
    worker = undefined;
    const operator = join(box.dir.path, 'operator');
    await mkdir(operator, { recursive: true });
    const start = startBirdie(['start', '--json', '--user', 'alice'], {
      env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: scriptFile },
      cwd: operator,
      timeoutMs: 60_000,
    });
    await start.waitFor('stderr', new RegExp(`task ${id}\\b[^\\n]*birdie serve`), 30_000);
    start.kill('SIGTERM');
    const finished = await start.exited;
    expect(finished.code, finished.stderr).toBe(0);
    expect(finished.stdout).not.toContain(`"agent":"task ${id}"`);
  });
});
