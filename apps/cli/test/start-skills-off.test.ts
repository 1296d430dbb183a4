import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie, startBirdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';

// The report's repro: an agent of a trusted project that names the bundled filesystem skill (off until enabled) runs
// unattended. Nobody is there to enable it, so the run is refused, loudly, instead of running without its tools.

let box: Sandbox;
let project: string;
beforeEach(async () => {
  // The real bundled skills: filesystem and scheduler, both off by default.
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: join(CLI_ROOT, '..', '..', 'skills') });
  project = join(box.cwd, 'proj');
  await mkdir(join(project, '.birdie', 'agents'), { recursive: true });
  await writeFile(
    join(project, '.birdie', 'agents', 'ticker.md'),
    `---
name: ticker
description: Writes a tick file.
every: 1h
prompt: write the tick
skills: [filesystem]
approve: [write_file, list_dir]
---
You write ticks.
`,
  );
});
afterEach(async () => {
  await box.cleanup();
});

async function withScript(replies: unknown[]): Promise<NodeJS.ProcessEnv> {
  const file = join(box.dir.path, `script-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify({ replies }));
  return { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: file };
}

const writesTick = (file: string) => [
  { match: 'write the tick', tool_calls: [{ name: 'write_file', args: { path: file, content: 'tick' } }] },
  { match: 'write the tick', text: 'ticked' },
];

const OFF =
  'agent ticker: its skill filesystem is not enabled for birdie start, so it lacks the tools read_file';
const FIX = 'Enable it for every session with: birdie config add skills.enable filesystem';

async function runsOf(userId = 'tester') {
  const store = openStore({ home: box.home });
  try {
    return await store.runs.list({ userId });
  } finally {
    await store.close();
  }
}

describe('birdie start: an agent whose skills are off for the user', { timeout: 90_000 }, () => {
  it('--once refuses the run (no model call), says which skill and how to enable it, and exits non-zero', async () => {
    const env = await withScript(writesTick('f0.txt'));
    expect((await birdie(['trust', project], { env, cwd: project })).code).toBe(0);

    const refused = await birdie(['start', '--once', 'ticker'], { env, cwd: project });
    expect(refused.code, refused.stderr).not.toBe(0);
    expect(refused.stderr).toContain(OFF);
    expect(refused.stderr).toContain(FIX);
    await expect(readFile(join(project, 'f0.txt'), 'utf8')).rejects.toThrow();
    const [run] = await runsOf();
    expect(run).toMatchObject({ status: 'rejected', inputTokens: 0, outputTokens: 0 });
    expect(run!.error).toContain(OFF);
    expect(run!.error).toContain(FIX);
    expect(run!.toolCalls).toEqual([]);

    // Enabled by the user: the same agent runs and gets its tool.
    const set = await birdie(['config', 'add', 'skills.enable', 'filesystem'], { env, cwd: project });
    expect(set.code, set.stderr).toBe(0);
    const ran = await birdie(['start', '--once', 'ticker'], { env, cwd: project });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).not.toContain('agent ticker:');
    expect(await readFile(join(project, 'f0.txt'), 'utf8')).toBe('tick');
  });

  it('birdie start says so for each triggered agent before its first run, in text and in --json', async () => {
    const env = await withScript([]);
    expect((await birdie(['trust', project], { env, cwd: project })).code).toBe(0);

    const text = startBirdie(['start'], { env, cwd: project, timeoutMs: 60_000 });
    await text.waitFor('stdout', /ticker\s+every 1h/);
    await text.waitFor('stderr', /birdie config add skills\.enable filesystem/);
    expect(text.stderr()).toContain(OFF);
    text.kill('SIGTERM');
    expect((await text.exited).code).toBe(0);

    const json = startBirdie(['start', '--json'], { env, cwd: project, timeoutMs: 60_000 });
    const [line] = await json.waitFor('stderr', /\{[^\n]*"event":"skills-off"[^\n]*\}/);
    expect(JSON.parse(line)).toMatchObject({
      event: 'skills-off',
      agent: 'ticker',
      skills: ['filesystem'],
      message: expect.stringContaining(FIX),
    });
    // The event came before the trigger was scheduled (and so before its first run).
    await json.waitFor('stdout', /"type":"scheduled","agent":"ticker"/);
    json.kill('SIGTERM');
    expect((await json.exited).code).toBe(0);
  });
});

describe('birdie start: a scheduled task keeps the grants of the session that scheduled it', {
  timeout: 90_000,
}, () => {
  it('runs with the skills that session had enabled, though the settings enable none', async () => {
    const at = new Date(Date.now() - 1000).toISOString();
    const env = await withScript([
      {
        match: 'remind',
        tool_calls: [{ name: 'schedule_task', args: { prompt: 'write the task file', at } }],
      },
      { match: 'remind', text: 'Scheduled.' },
      { match: 'write the task file', tool_calls: [{ name: 'list_dir', args: { path: '.' } }] },
      { match: 'write the task file', text: 'Listed.' },
    ]);
    const scheduled = await birdie(
      ['run', '--enable', 'scheduler', '--enable', 'filesystem', '--yes', 'remind me'],
      { env, cwd: box.cwd },
    );
    expect(scheduled.code, scheduled.stderr).toBe(0);

    const p = startBirdie(['start', '--json'], { env, cwd: box.cwd, timeoutMs: 60_000 });
    await p.waitFor('stderr', /"event":"run-end","agent":"task 1"/);
    p.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);

    const [taskRun] = await runsOf();
    expect(taskRun).toMatchObject({ status: 'ok', answer: 'Listed.' });
    expect(taskRun!.toolCalls.map((c) => [c.name, c.status])).toEqual([['list_dir', 'ok']]);
  });
});

describe('birdie start: a task for an agent with session: keep', { timeout: 90_000 }, () => {
  // Review: the task ran in the agent's kept session, with that session's grants (here: the settings', none), so the
  // grants it kept were ignored and the refusal blamed the session that scheduled it.
  it('runs in a session of its own with the grants it kept, not in the kept session', async () => {
    await writeFile(
      join(project, '.birdie', 'agents', 'keeper.md'),
      `---
name: keeper
description: Keeps one session.
every: 1h
prompt: keep going
session: keep
skills: [filesystem]
approve: [write_file, list_dir]
---
You keep going.
`,
    );
    const at = new Date(Date.now() - 1000).toISOString();
    const env = await withScript([
      {
        match: 'remind',
        tool_calls: [{ name: 'schedule_task', args: { prompt: 'write the tick', at, agent: 'keeper' } }],
      },
      { match: 'remind', text: 'Scheduled.' },
      ...writesTick('kept-task.txt'),
    ]);
    expect((await birdie(['trust', project], { env, cwd: project })).code).toBe(0);
    const scheduled = await birdie(
      ['run', '--enable', 'scheduler', '--enable', 'filesystem', '--yes', 'remind me'],
      { env, cwd: project },
    );
    expect(scheduled.code, scheduled.stderr).toBe(0);

    const p = startBirdie(['start', '--json'], { env, cwd: project, timeoutMs: 60_000 });
    await p.waitFor('stderr', /"event":"run-end","agent":"task 1"/);
    p.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);

    expect(await readFile(join(project, 'kept-task.txt'), 'utf8')).toBe('tick');
    const [taskRun] = await runsOf();
    expect(taskRun).toMatchObject({ status: 'ok' });
    const store = openStore({ home: box.home });
    try {
      const sessions = await store.sessions.list('tester');
      expect(sessions.find((s) => s.id === taskRun!.sessionId)?.title).not.toBe('keeper: kept session');
    } finally {
      await store.close();
    }
  });
});

describe('birdie start: a task and a skill disabled after it was scheduled', { timeout: 90_000 }, () => {
  // Review: a task's kept grants replaced the settings entirely, so `skills.disable` added later did not reach it.
  it("runs without the skill the user's settings disable now", async () => {
    const at = new Date(Date.now() - 1000).toISOString();
    const env = await withScript([
      { match: 'remind', tool_calls: [{ name: 'schedule_task', args: { prompt: 'list the folder', at } }] },
      { match: 'remind', text: 'Scheduled.' },
      { match: 'list the folder', tool_calls: [{ name: 'list_dir', args: { path: '.' } }] },
      { match: 'list the folder', text: 'Done.' },
    ]);
    const scheduled = await birdie(
      ['run', '--enable', 'scheduler', '--enable', 'filesystem', '--yes', 'remind me'],
      { env, cwd: box.cwd },
    );
    expect(scheduled.code, scheduled.stderr).toBe(0);
    const disabled = await birdie(['config', 'add', 'skills.disable', 'filesystem'], { env, cwd: box.cwd });
    expect(disabled.code, disabled.stderr).toBe(0);

    const p = startBirdie(['start', '--json'], { env, cwd: box.cwd, timeoutMs: 60_000 });
    await p.waitFor('stderr', /"event":"run-end","agent":"task 1"/);
    p.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);

    const [taskRun] = await runsOf();
    expect(taskRun!.toolCalls.map((c) => [c.name, c.status])).not.toContainEqual(['list_dir', 'ok']);
  });
});

describe('birdie start: a task whose grants leave its agent without its skills', { timeout: 90_000 }, () => {
  it("refuses the task's run, says so at start, and the one-time task ends failed", async () => {
    const at = new Date(Date.now() - 1000).toISOString();
    const env = await withScript([
      {
        match: 'remind',
        tool_calls: [{ name: 'schedule_task', args: { prompt: 'write the tick', at, agent: 'ticker' } }],
      },
      { match: 'remind', text: 'Scheduled.' },
      ...writesTick('task.txt'),
    ]);
    expect((await birdie(['trust', project], { env, cwd: project })).code).toBe(0);
    // Scheduled from a session that has the scheduler only: the ticker's filesystem skill is off there.
    const scheduled = await birdie(['run', '--enable', 'scheduler', '--yes', 'remind me'], {
      env,
      cwd: project,
    });
    expect(scheduled.code, scheduled.stderr).toBe(0);

    const p = startBirdie(['start', '--json'], { env, cwd: project, timeoutMs: 60_000 });
    const [line] = await p.waitFor('stderr', /\{[^\n]*"event":"skills-off","agent":"task 1"[^\n]*\}/);
    expect(JSON.parse(line).message).toContain(
      'task 1 (agent ticker): its skill filesystem was not enabled in the session that scheduled it, so it lacks the tools read_file',
    );
    await p.waitFor('stderr', /"event":"run-end","agent":"task 1"/);
    p.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);

    await expect(readFile(join(project, 'task.txt'), 'utf8')).rejects.toThrow();
    const [taskRun] = await runsOf();
    expect(taskRun).toMatchObject({ status: 'rejected', inputTokens: 0 });
    const list = await birdie(['tasks', 'list', '--all'], { env, cwd: project });
    expect(list.stdout).toMatch(/1\s+failed/);
  });

  it('a task scheduled before tasks kept grants runs as before, and birdie start says so', async () => {
    const store = openStore({ home: box.home });
    try {
      await store.tasks.create({ userId: 'tester', prompt: 'hourly', every: 3600, createdByRun: 1 });
    } finally {
      await store.close();
    }
    const env = await withScript([]);
    const p = startBirdie(['start', '--json'], { env, cwd: box.cwd, timeoutMs: 60_000 });
    const [line] = await p.waitFor('stderr', /\{[^\n]*"event":"skills-off","agent":"task 1"[^\n]*\}/);
    expect(JSON.parse(line)).toMatchObject({
      skills: [],
      message: expect.stringContaining(
        'task 1 was scheduled before tasks kept the skills of the session that scheduled them: it runs with the skills your settings enable',
      ),
    });
    await p.waitFor('stdout', /"type":"scheduled","agent":"task 1"/);
    p.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  });
});
