import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '@birdie/store';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie, startBirdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// One scheduled task whose timing no longer parses (a row another writer stored: the store keeps any text, only the
// task tools check it) made the scheduler refuse the whole update: `birdie start` died with "unexpected error" and
// ran none of the other agents and tasks. The others run; the bad one is said once, and runs once it is fixed.

let box: Sandbox;
let agents: string;
beforeEach(async () => {
  box = await sandbox();
  agents = join(box.dir.path, 'agents');
  await mkdir(agents);
});
afterEach(async () => {
  await box.cleanup();
});

async function agent(name: string, frontmatter: string): Promise<void> {
  await writeFile(
    join(agents, `${name}.md`),
    `---\nname: ${name}\ndescription: A test agent.\n${frontmatter}\n---\nYou are a test agent.\n`,
  );
}

type LogLine = { event: string; [key: string]: unknown };
const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

describe('birdie start with a scheduled task that cannot run', { timeout: 90_000 }, () => {
  it('runs the other agents and tasks, says the bad task once, and runs it once it is fixed', async () => {
    await agent('ticker', 'every: 1s\nprompt: Tick.');
    const store = openStore({ home: box.home });
    let bad: number;
    let good: number;
    try {
      bad = (await store.tasks.create({ userId: 'tester', prompt: 'Bad.', schedule: 'every morning' })).id;
      good = (await store.tasks.create({ userId: 'tester', prompt: 'Once.', at: new Date() })).id;
    } finally {
      await store.close();
    }
    const scriptFile = join(box.dir.path, 'script.json');
    await writeFile(
      scriptFile,
      JSON.stringify({ replies: Array.from({ length: 60 }, () => ({ text: 'ok' })) }),
    );
    const p = startBirdie(['start', '--agents-dir', agents, '--json'], {
      env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: scriptFile },
      cwd: box.cwd,
      timeoutMs: 60_000,
    });
    await p.waitFor('stderr', /"event":"run-end","agent":"ticker"/);
    await p.waitFor('stderr', new RegExp(`"event":"run-end","agent":"task ${good}"`));
    await p.waitFor('stdout', new RegExp(`"agent":"task ${good}"`));
    const scheduled = jsonLines(p.stdout()).map((l) => l.agent);
    expect(scheduled).toEqual(['ticker', `task ${good}`]);

    // A reload schedules every trigger again: the bad task, unchanged, is not said again.
    await agent('other', 'every: 1h\nprompt: Other.');
    await p.waitFor('stderr', /"event":"reloaded"/);
    const errors = () =>
      jsonLines(p.stderr()).filter((l) => l.event === 'error' && l.agent === `task ${bad}`);
    expect(errors()).toHaveLength(1);
    expect(errors()[0]!.error).toMatch(/task \d+ is not scheduled: not a cron schedule: every morning/);
    expect(errors()[0]!.error).toContain(`birdie tasks cancel ${bad}`);

    // Fixed where it is stored: the next time the triggers are read, it runs.
    const db = new Database(join(box.home, 'birdie.db'));
    try {
      db.prepare('UPDATE tasks SET schedule = ? WHERE id = ?').run('* * * * * *', bad);
    } finally {
      db.close();
    }
    await agent('third', 'every: 1h\nprompt: Third.');
    await p.waitFor('stderr', new RegExp(`"event":"run-end","agent":"task ${bad}"`));
    p.kill('SIGTERM');
    const done = await p.exited;
    expect(done.code).toBe(0);
    expect(done.stderr).not.toMatch(/unexpected error/);
    expect(errors()).toHaveLength(1);
    // Every event names a task as the others do (`task 3`), never by the scheduler's id (`task-3`).
    const reloads = jsonLines(done.stderr).filter((l) => l.event === 'reloaded');
    expect([...((reloads.at(-1)?.agents as string[]) ?? [])].sort()).toEqual(
      ['other', `task ${bad}`, 'third', 'ticker'].sort(),
    );
    expect(done.stderr).not.toMatch(/"task-\d+"/);
  });

  // A sibling: where each task was scheduled is looked up (the server runs those scheduled through it). One task whose
  // lookup fails (its run is another user's: a row another writer stored) made the whole task list unreadable:
  // `birdie start` refused to start, and `birdie serve` ran no task of any user.
  it('a task whose scheduling run cannot be read is left out and said once; the others run', async () => {
    await agent('ticker', 'every: 1h\nprompt: Tick.');
    const scriptFile = join(box.dir.path, 'script.json');
    await writeFile(
      scriptFile,
      JSON.stringify({ replies: Array.from({ length: 10 }, () => ({ text: 'ok' })) }),
    );
    const env = { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: scriptFile };
    const bobs = await birdie(['run', '--user', 'bob', 'hello'], { env, cwd: box.cwd });
    expect(bobs.code, bobs.stderr).toBe(0);
    const store = openStore({ home: box.home });
    let odd: number;
    let good: number;
    try {
      const [run] = await store.runs.list({ userId: 'bob' });
      odd = (
        await store.tasks.create({ userId: 'tester', prompt: 'Odd.', every: 3600, createdByRun: run!.id })
      ).id;
      good = (await store.tasks.create({ userId: 'tester', prompt: 'Once.', at: new Date() })).id;
    } finally {
      await store.close();
    }
    const p = startBirdie(['start', '--agents-dir', agents, '--json'], {
      env,
      cwd: box.cwd,
      timeoutMs: 60_000,
    });
    await p.waitFor('stderr', new RegExp(`"event":"run-end","agent":"task ${good}"`));
    await p.waitFor('stdout', new RegExp(`"agent":"task ${good}"`));
    expect(jsonLines(p.stdout()).map((l) => l.agent)).toEqual(['ticker', `task ${good}`]);
    // A reload reads the tasks again: the odd one is not said again.
    await agent('other', 'every: 1h\nprompt: Other.');
    await p.waitFor('stderr', /"event":"reloaded"/);
    p.kill('SIGTERM');
    const done = await p.exited;
    expect(done.code).toBe(0);
    const said = jsonLines(done.stderr).filter((l) => l.event === 'error' && l.agent === `task ${odd}`);
    expect(said).toHaveLength(1);
    expect(said[0]!.error).toMatch(new RegExp(`task ${odd} is not run: .*belongs to user bob`));
  });
});
