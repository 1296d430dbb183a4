import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore, type RunRecord } from '@birdie/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BirdieProcess, startBirdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { taskRuns } from './helpers/task-runs.js';
import { until as poll } from './helpers/until.js';

// Report: an agent whose skills are off for `birdie start` (the bundled filesystem skill, not enabled in the settings)
// with `every: 1s` was refused and logged `rejected` at every due time, each firing making a new session, while
// nothing that decides the refusal (the settings, read once at start; the agent file) had changed: an agent every
// minute left 1,440 rejected runs a day. So did a task naming such an agent. Now the first refusal is logged, then the
// trigger is held (said once) until its agent file no longer needs a skill that is off; then it fires again.

let box: Sandbox;
let agents: string;
let start: BirdieProcess | undefined;
let witness = 0;
let task = 0;

const agentFile = (name: string, extra: string) =>
  writeFile(
    join(agents, `${name}.md`),
    `---\nname: ${name}\ndescription: The ${name} agent.\n${extra}---\nYou work.\n`,
  );

async function agentRuns(name: string): Promise<RunRecord[]> {
  const store = openStore({ home: box.home });
  try {
    const runs = await store.runs.list({ userId: 'tester', limit: 1000 });
    return runs.filter((r) => r.trigger?.startsWith('every ') && r.agent?.name === name);
  } finally {
    store.close();
  }
}

const until = (what: string, done: () => Promise<boolean>) =>
  poll(what, done, { context: () => start?.stderr() ?? '' });

beforeAll(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: join(CLI_ROOT, '..', '..', 'skills') });
  agents = join(box.home, 'agents');
  await mkdir(agents, { recursive: true });
  await agentFile('ticker', 'every: 1s\nprompt: tick\nskills: [filesystem]\n');
  await agentFile('digest', 'skills: [filesystem]\n');
  await agentFile('keeper', 'every: 1s\nprompt: keep\nsession: keep\nskills: [filesystem]\n');
  const script = join(box.dir.path, 'script.json');
  const replies = ['tick', 'digest', 'witness', 'keep'].flatMap((word) =>
    Array.from({ length: 200 }, () => ({ match: `^${word}`, text: `${word} done` })),
  );
  await writeFile(script, JSON.stringify({ replies }));
  const store = openStore({ home: box.home });
  try {
    task = (await store.tasks.create({ userId: 'tester', prompt: 'digest', every: 1, agent: 'digest' })).id;
    witness = (await store.tasks.create({ userId: 'tester', prompt: 'witness', every: 1 })).id;
  } finally {
    store.close();
  }
  start = startBirdie(['start'], {
    env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
    cwd: box.cwd,
    timeoutMs: 200_000,
  });
}, 60_000);

afterAll(async () => {
  start?.kill('SIGKILL');
  await box?.cleanup();
});

describe('birdie start and triggers whose agent’s skills are off', { timeout: 200_000 }, () => {
  it('logs the first refusal of each, then holds it, said once, while the witness task runs on', async () => {
    await until(
      'both refused once',
      async () =>
        (await agentRuns('ticker')).length > 0 && (await taskRuns(box.home, 'tester', task)).length > 0,
    );
    const seen = (await taskRuns(box.home, 'tester', witness)).length;
    await until(
      'the witness ran four more times',
      async () => (await taskRuns(box.home, 'tester', witness)).length >= seen + 4,
    );
    const ticker = await agentRuns('ticker');
    expect(ticker, start!.stderr()).toHaveLength(1);
    expect(ticker[0]).toMatchObject({ status: 'rejected' });
    expect(ticker[0]!.error).toContain('its skill filesystem is not enabled for birdie start');
    const digest = await taskRuns(box.home, 'tester', task);
    expect(digest, start!.stderr()).toHaveLength(1);
    expect(digest[0]).toMatchObject({ status: 'rejected' });
    const stderr = start!.stderr();
    expect(stderr.match(/ticker is held: its firing was refused \(run \d+\)[^\n]*/g), stderr).toHaveLength(1);
    expect(
      stderr.match(new RegExp(`task ${task} is held: its firing was refused[^\\n]*`, 'g')),
      stderr,
    ).toHaveLength(1);
    expect(stderr).toContain(
      'until its agent file changes so that none of them is needed, or birdie start restarts',
    );
  });

  it('never holds an agent with `session: keep`: its kept session’s grants may be changed elsewhere', async () => {
    await until('keeper refused twice', async () => (await agentRuns('keeper')).length >= 2);
    const refused = await agentRuns('keeper');
    expect(refused.every((r) => r.status === 'rejected')).toBe(true);
    expect(new Set(refused.map((r) => r.sessionId)).size).toBe(1);
    expect(start!.stderr()).not.toMatch(/keeper is held/);
    // The user enables the skill in the kept session (as `/skill enable filesystem` there would): the next run has it.
    const store = openStore({ home: box.home });
    try {
      await store.grants.set(refused[0]!.sessionId, 'tester', { enabled: ['filesystem'], disabled: [] });
    } finally {
      store.close();
    }
    await until('a run of keeper with the skill', async () =>
      (await agentRuns('keeper')).some((r) => r.status === 'ok'),
    );
  });

  it('keeps them held when another agent file changes: nothing that refused them did', async () => {
    const reloads = () => (start!.stderr().match(/reloaded: /g) ?? []).length;
    const before = reloads();
    await agentFile('bystander', 'prompt: look\n');
    await until('the agent files read again', async () => reloads() > before);
    const seen = (await taskRuns(box.home, 'tester', witness)).length;
    await until(
      'the witness ran four more times',
      async () => (await taskRuns(box.home, 'tester', witness)).length >= seen + 4,
    );
    expect(await agentRuns('ticker'), start!.stderr()).toHaveLength(1);
    expect(await taskRuns(box.home, 'tester', task), start!.stderr()).toHaveLength(1);
    expect(start!.stderr().match(/ticker is held/g), start!.stderr()).toHaveLength(1);
  });

  it('fires it again once its agent file changes', async () => {
    await agentFile('ticker', 'every: 1s\nprompt: tick\n');
    await until('a run of ticker without the skill', async () =>
      (await agentRuns('ticker')).some((r) => r.status === 'ok'),
    );
    expect((await agentRuns('ticker')).find((r) => r.status === 'ok')!.answer).toBe('tick done');
  });
});
