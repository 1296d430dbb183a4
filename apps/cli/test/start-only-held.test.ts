import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { afterAll, describe, expect, it } from 'vitest';
import { type BirdieProcess, birdie, startBirdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Report: with one recurring task, held because its agent has no file, `birdie start` said the task was held and then
// "No agents with triggers (schedule, every or watch) and no scheduled tasks; waiting for some.": the user has a task
// scheduled, and was told there is none. The line now says that nothing runs because the task is held.

interface HeldOnly {
  box: Sandbox;
  start: BirdieProcess;
  task: number;
}
const running: HeldOnly[] = [];

/** `birdie start` (with `args`) in a trusted project whose one recurring task runs an agent no file defines. */
async function startWithOnlyAHeldTask(args: string[]): Promise<HeldOnly> {
  const box = await sandbox();
  const project = join(box.cwd, 'proj');
  const agentFile = join(project, '.birdie', 'agents', 'ticker.md');
  await mkdir(join(project, '.birdie', 'agents'), { recursive: true });
  await writeFile(agentFile, '---\nname: ticker\ndescription: Ticks.\n---\nYou tick.\n');
  expect((await birdie(['trust', project], { env: box.env, cwd: project })).code).toBe(0);
  await rm(agentFile);
  const s = openStore({ home: box.home });
  let task: number;
  try {
    task = (await s.tasks.create({ userId: 'tester', prompt: 'tick', every: 60, agent: 'ticker' })).id;
  } finally {
    s.close();
  }
  // Nothing may run: a model with no replies.
  const script = join(box.dir.path, 'script.json');
  await writeFile(script, JSON.stringify({ replies: [] }));
  const env = { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script };
  const started = { box, task, start: startBirdie(['start', ...args], { env, cwd: project, timeoutMs: 60_000 }) };
  running.push(started);
  return started;
}

afterAll(async () => {
  for (const { start, box } of running) {
    start.kill('SIGKILL');
    await box.cleanup();
  }
});

describe('birdie start with only a held task', { timeout: 60_000 }, () => {
  it('says that nothing runs because the task is held, not that there are no tasks', async () => {
    const { start, task } = await startWithOnlyAHeldTask([]);
    const [line] = await start.waitFor('stdout', /^.*waiting.*$/m, 50_000);
    expect(line, start.stderr()).not.toMatch(/no scheduled tasks/);
    expect(line).toBe(
      `Nothing is scheduled: task ${task} is held (said above); waiting for an agent with a trigger, or a task that can run.`,
    );
    expect(start.stderr()).toMatch(new RegExp(`task ${task} is held`));
  });

  it('with --json, prints a held record on stdout for the task, beside the scheduled ones', async () => {
    const { start, task } = await startWithOnlyAHeldTask(['--json']);
    const [line] = await start.waitFor('stdout', /^\{.*\}$/m, 50_000);
    expect(JSON.parse(line!), start.stderr()).toEqual({ type: 'held', agent: `task ${task}` });
    const notice = start
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { event?: string; agent?: string; message?: string })
      .find((e) => e.event === 'notice' && e.agent === `task ${task}`);
    expect(notice?.message).toMatch(new RegExp(`^task ${task} is held: `));
  });
});
