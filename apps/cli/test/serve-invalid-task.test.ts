import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { makeToken, startWorker, streamEvents } from './helpers/serve.js';

// One task row of a server's user whose timing does not parse (stored by another writer: the store keeps any text,
// only the task tools check it) made the scheduler refuse the whole update: `birdie serve` would not start at all,
// so no user's API and no other task ran. The server starts, runs the other tasks, and names the bad one once.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

describe('birdie serve with a scheduled task that cannot run', { timeout: 120_000 }, () => {
  it('starts, runs the other tasks and says the bad one once', async () => {
    const root = join(box.dir.path, 'workspaces');
    await mkdir(join(root, 'alice'), { recursive: true, mode: 0o700 });
    const home = join(box.dir.path, 'server-home');
    const script = join(box.dir.path, 'script.json');
    await writeFile(
      script,
      JSON.stringify({
        replies: [
          { match: '^hello', text: 'hi' },
          { match: '^good task', text: 'done' },
        ],
      }),
    );
    const env = { ...box.env, BIRDIE_HOME: home, LLM_VENDOR: 'scripted', LLM_SCRIPT: script };
    const token = await makeToken('alice', { env, cwd: box.cwd });
    const serve = () => startWorker(['--grace', '1', '--workspaces', root], { env, cwd: box.cwd, home });

    // Alice's API session: the run its tasks are scheduled from (which makes them the server's to run).
    const first = await serve();
    const made = await first.request('/v1/sessions', { token, json: {} });
    expect(made.status).toBe(201);
    const { id: session } = (await made.json()) as { id: string };
    await streamEvents(
      await first.request(`/v1/sessions/${session}/turns`, { token, json: { prompt: 'hello' } }),
    );
    first.process.kill('SIGTERM');
    expect((await first.process.exited).code).toBe(0);

    const store = openStore({ home });
    let bad: number;
    let good: number;
    try {
      const [run] = await store.runs.list({ userId: 'alice' });
      const createdByRun = run!.id;
      bad = (
        await store.tasks.create({ userId: 'alice', prompt: 'Bad.', schedule: 'every morning', createdByRun })
      ).id;
      good = (
        await store.tasks.create({ userId: 'alice', prompt: 'good task', at: new Date(), createdByRun })
      ).id;
    } finally {
      await store.close();
    }

    const second = await serve();
    await second.process.waitFor('stderr', new RegExp(`end task ${good} ok`));
    second.process.kill('SIGTERM');
    const done = await second.process.exited;
    expect(done.code).toBe(0);
    const said = done.stderr.split('\n').filter((l) => l.includes(`task ${bad} is not scheduled`));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/not a cron schedule: every morning/);
  });
});
