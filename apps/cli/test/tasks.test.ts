import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie, startBirdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';

let box: Sandbox;
beforeEach(async () => {
  // The real bundled skills: the scheduler skill that ships.
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: join(CLI_ROOT, '..', '..', 'skills') });
});
afterEach(async () => {
  await box.cleanup();
});

async function withScript(replies: unknown[]): Promise<NodeJS.ProcessEnv> {
  const file = join(box.dir.path, `script-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify({ replies }));
  return { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: file };
}

describe('scheduled tasks (the scheduler skill, birdie tasks, birdie start)', { timeout: 90_000 }, () => {
  it('the model schedules a task with approval; birdie start runs it as a child of that run; tasks list and cancel', async () => {
    const at = new Date(Date.now() - 1000).toISOString();
    const env = await withScript([
      { match: 'remind', tool_calls: [{ name: 'schedule_task', args: { prompt: 'Water the plants.', at } }] },
      { match: 'remind', text: 'Scheduled.' },
      { match: 'Water the plants', text: 'Watered.' },
    ]);
    const scheduled = await birdie(
      ['run', '--enable', 'scheduler', '--yes', 'remind me to water the plants'],
      {
        env,
        cwd: box.cwd,
      },
    );
    expect(scheduled.code).toBe(0);
    const list = await birdie(['tasks', 'list'], { env: box.env, cwd: box.cwd });
    expect(list.stdout).toMatch(
      new RegExp(`1\\s+active\\s+at ${at.replace(/\./g, '\\.')}\\s+-\\s+Water the plants\\.`),
    );

    const p = startBirdie(['start', '--json'], { env, cwd: box.cwd, timeoutMs: 60_000 });
    await p.waitFor('stdout', /"agent":"task 1","trigger":"at /);
    await p.waitFor('stderr', /"event":"run-end","agent":"task 1"/);
    p.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);

    const store = openStore({ home: box.home });
    try {
      const [taskRun, modelRun] = await store.runs.list({ userId: 'tester' });
      expect(taskRun).toMatchObject({
        status: 'ok',
        answer: 'Watered.',
        parentRunId: modelRun!.id,
        trigger: expect.stringMatching(/^task 1 \(at /),
      });
      expect(modelRun!.toolCalls.map((c) => [c.name, c.status])).toEqual([['schedule_task', 'ok']]);
    } finally {
      await store.close();
    }
    // An `at` task is done after its run.
    expect((await birdie(['tasks', 'list'], { env: box.env, cwd: box.cwd })).stdout).toMatch(
      /No scheduled tasks/,
    );
    const all = await birdie(['tasks', 'list', '--all', '--json'], { env: box.env, cwd: box.cwd });
    expect(JSON.parse(all.stdout.trim())).toMatchObject({
      id: 1,
      status: 'done',
      createdByRun: expect.any(Number),
    });
  });

  it('a task still runs after the session that scheduled it was deleted (its run went with it)', async () => {
    const at = new Date(Date.now() - 1000).toISOString();
    const env = await withScript([
      { match: '^go$', tool_calls: [{ name: 'schedule_task', args: { prompt: 'Water the plants.', at } }] },
      { match: '^go$', text: 'scheduled' },
      { match: 'Water the plants', text: 'watered' },
    ]);
    const run = await birdie(['run', '--enable', 'scheduler', '--yes', '--json', 'go'], {
      env,
      cwd: box.cwd,
    });
    expect(run.code, run.stderr).toBe(0);
    const sessionId = (JSON.parse(run.stdout.trim().split('\n')[0]!) as { id: string }).id;
    const deleted = await birdie(['sessions', 'delete', sessionId], { env, cwd: box.cwd });
    expect(deleted.code, deleted.stderr).toBe(0);
    const p = startBirdie(['start', '--json'], { env, cwd: box.cwd, timeoutMs: 60_000 });
    await p.waitFor('stderr', /"event":"run-end","agent":"task 1"/);
    p.kill('SIGTERM');
    const ended = await p.exited;
    expect(ended.stderr).toMatch(/"event":"run-end","agent":"task 1".*"status":"ok"/);
    const json = JSON.parse(
      (await birdie(['tasks', 'list', '--all', '--json'], { env: box.env, cwd: box.cwd })).stdout.trim(),
    );
    expect(json).toMatchObject({ id: 1, status: 'done' });
  });

  it('a one-time task whose only run failed is listed `failed` with the error, not `done`, and is not run again', async () => {
    const at = new Date(Date.now() - 1000).toISOString();
    // No reply for the task's prompt: its run's model call fails.
    const env = await withScript([
      { match: '^go$', tool_calls: [{ name: 'schedule_task', args: { prompt: 'nightly report', at } }] },
      { match: '^go$', text: 'scheduled' },
    ]);
    expect((await birdie(['run', '--enable', 'scheduler', '--yes', 'go'], { env, cwd: box.cwd })).code).toBe(
      0,
    );
    const p = startBirdie(['start', '--json'], { env, cwd: box.cwd, timeoutMs: 60_000 });
    await p.waitFor('stderr', /"event":"run-end","agent":"task 1".*"status":"error"/);
    p.kill('SIGTERM');
    await p.exited;
    const list = await birdie(['tasks', 'list', '--all'], { env: box.env, cwd: box.cwd });
    expect(list.stdout).toMatch(/1\s+failed\s+at /);
    const json = JSON.parse(
      (await birdie(['tasks', 'list', '--all', '--json'], { env: box.env, cwd: box.cwd })).stdout.trim(),
    );
    expect(json).toMatchObject({
      id: 1,
      status: 'failed',
      error: expect.stringMatching(/^error: .+ \(run \d+\)$/),
    });
    expect((await birdie(['tasks', 'list'], { env: box.env, cwd: box.cwd })).stdout).toMatch(
      /No scheduled tasks/,
    );
  });

  it('scheduling needs approval: birdie run without --yes refuses it; bad timings reach the model as tool errors', async () => {
    const env = await withScript([
      { match: 'daily', tool_calls: [{ name: 'schedule_task', args: { prompt: 'Report.', every: '1d' } }] },
      { match: 'daily', text: 'Could not.' },
      { match: 'often', tool_calls: [{ name: 'schedule_task', args: { prompt: 'Spam.', every: '5s' } }] },
      { match: 'often', text: 'Refused by the check.' },
    ]);
    const refused = await birdie(['run', '--enable', 'scheduler', 'daily report please'], {
      env,
      cwd: box.cwd,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/schedule_task .* needs approval/);
    const bad = await birdie(['run', '--enable', 'scheduler', '--yes', '--json', 'often please'], {
      env,
      cwd: box.cwd,
    });
    expect(bad.stdout).toMatch(/every: \\"5s\\" is not an interval of at least one minute/);
    expect((await birdie(['tasks', 'list', '--json'], { env: box.env, cwd: box.cwd })).stdout).toBe('');
  });

  it('schedule_task refuses times that cannot mean what they say: 31 February, an `at` in the past, a cron that never comes due', async () => {
    const env = await withScript([
      {
        match: '^go',
        tool_calls: [
          { name: 'schedule_task', args: { prompt: 'feb 31', at: '2027-02-31T09:00:00Z' } },
          { name: 'schedule_task', args: { prompt: 'last year', at: '2025-01-01T09:00:00Z' } },
          { name: 'schedule_task', args: { prompt: 'feb 30 cron', schedule: '0 0 30 2 *' } },
          { name: 'schedule_task', args: { prompt: 'hour 25', at: '2027-01-01T25:00:00+01:00' } },
        ],
      },
      { match: '^go', text: 'done' },
    ]);
    const run = await birdie(['run', '--enable', 'scheduler', '--yes', '--json', 'go'], {
      env,
      cwd: box.cwd,
    });
    const ends = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((e) => e.type === 'tool-end');
    expect(ends.map((e) => [e.ok, e.output])).toEqual([
      [false, expect.stringMatching(/at: "2027-02-31T09:00:00Z" is not a time: February 2027 has no day 31/)],
      [false, expect.stringMatching(/at: "2025-01-01T09:00:00Z" is \d+ days in the past/)],
      [
        false,
        expect.stringMatching(
          /"0 0 30 2 \*" is not a cron expression: it never comes due \(no date matches it\)/,
        ),
      ],
      [false, expect.stringMatching(/at: "2027-01-01T25:00:00\+01:00" is not a time: hour 25/)],
    ]);
    expect((await birdie(['tasks', 'list', '--all', '--json'], { env: box.env, cwd: box.cwd })).stdout).toBe(
      '',
    );
  });

  it("birdie tasks cancel ID cancels the user's task; an unknown id is a usage error", async () => {
    const store = openStore({ home: box.home });
    try {
      await store.tasks.create({ userId: 'tester', prompt: 'Hourly check.', every: 3600 });
      await store.tasks.create({ userId: 'someone', prompt: 'Not yours.', every: 3600 });
    } finally {
      await store.close();
    }
    const cancel = await birdie(['tasks', 'cancel', '1'], { env: box.env, cwd: box.cwd });
    expect([cancel.code, cancel.stdout.trim()]).toEqual([0, 'Cancelled task 1.']);
    const other = await birdie(['tasks', 'cancel', '2'], { env: box.env, cwd: box.cwd });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/no active task 2 of user tester\. Run `birdie tasks list`\./);
    // Reported: with --user, the hint listed the default user's tasks, not the ones of the user named.
    const named = await birdie(['tasks', 'cancel', '1', '--user', 'someone'], { env: box.env, cwd: box.cwd });
    expect(named.code).toBe(2);
    expect(named.stderr).toContain(
      'no active task 1 of user someone. Run `birdie tasks list --user someone`.',
    );
    const word = await birdie(['tasks', 'cancel', 'one'], { env: box.env, cwd: box.cwd });
    expect(word.stderr).toMatch(/ID must be a task number/);
    const help = await birdie(['tasks', '--help'], { env: box.env, cwd: box.cwd });
    expect(help.stdout).toMatch(
      /birdie tasks list +list your scheduled tasks[\s\S]*birdie tasks cancel +cancel/,
    );
    const listHelp = await birdie(['tasks', 'list', '--help'], { env: box.env, cwd: box.cwd });
    expect(listHelp.stdout).toMatch(/birdie tasks list \[--all\]/);
    const startHelp = await birdie(['start', '--help'], { env: box.env, cwd: box.cwd });
    expect(startHelp.stdout).toMatch(/--once AGENT[\s\S]*--grace SECONDS/);
  });
});
