import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { startWorker, type Worker } from './helpers/serve.js';
import { taskRuns } from './helpers/task-runs.js';
import { until as poll } from './helpers/until.js';

// The sibling of start-task-agent-missing under `birdie serve`: a recurring task of a server session naming an agent
// the operator's `serve.agents` does not allow failed at every firing ("agent … is not allowed on this server"), and
// one naming an agent no file defines made a session and failed at every firing too. Both are held now: said once,
// naming the user in the cancel command, never fired; a task naming an allowed agent runs beside them.

let box: Sandbox;
let worker: Worker | undefined;
const ids = { allowed: 0, refused: 0, missing: 0 };

const runsOf = (task: number) => taskRuns(box.home, 'erin', task);
const until = (what: string, done: () => Promise<boolean>) =>
  poll(what, done, { context: () => worker?.process.stderr() ?? '' });

beforeAll(async () => {
  box = await sandbox();
  const agents = join(box.dir.path, 'operator-agents');
  await mkdir(agents, { recursive: true });
  for (const name of ['helper', 'other'])
    await writeFile(
      join(agents, `${name}.md`),
      `---\nname: ${name}\ndescription: The ${name} agent.\n---\n\nYou help.\n`,
    );
  const set = await birdie(['config', 'set', 'serve.agents', 'helper,gone'], { env: box.env, cwd: box.cwd });
  expect(set.code, set.stderr).toBe(0);
  const script = join(box.dir.path, 'script.json');
  await writeFile(
    script,
    JSON.stringify({ replies: Array.from({ length: 300 }, () => ({ match: '^work', text: 'worked' })) }),
  );
  const store = openStore({ home: box.home });
  try {
    const task = async (agent: string) =>
      (
        await store.tasks.create({
          userId: 'erin',
          prompt: `work as ${agent}`,
          every: 1,
          agent,
          originSession: 'erin~2026-01-01_1',
        })
      ).id;
    ids.allowed = await task('helper');
    ids.refused = await task('other');
    ids.missing = await task('gone');
  } finally {
    store.close();
  }
  worker = await startWorker(
    ['--agents-dir', agents, '--grace', '1', '--workspaces', join(box.dir.path, 'workspaces')],
    { env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script }, cwd: box.cwd, home: box.home },
  );
}, 120_000);

afterAll(async () => {
  worker?.process.kill('SIGKILL');
  await box?.cleanup();
});

describe('birdie serve and recurring tasks whose agent cannot run', { timeout: 200_000 }, () => {
  it('holds them, each said once with its reason, while the allowed agent’s task runs', async () => {
    await until('the allowed task ran four times', async () => (await runsOf(ids.allowed)).length >= 4);
    expect((await runsOf(ids.allowed)).every((r) => r.status === 'ok' && r.answer === 'worked')).toBe(true);
    expect(await runsOf(ids.refused), worker!.process.stderr()).toEqual([]);
    expect(await runsOf(ids.missing), worker!.process.stderr()).toEqual([]);
    const stderr = worker!.process.stderr();
    const refused = stderr.match(new RegExp(`task ${ids.refused} is held: [^\\n]*`, 'g'));
    expect(refused, stderr).toHaveLength(1);
    expect(refused![0]).toContain('agent "other" is not allowed on this server');
    expect(refused![0]).toContain(`birdie tasks cancel ${ids.refused} --user erin`);
    const missing = stderr.match(new RegExp(`task ${ids.missing} is held: [^\\n]*`, 'g'));
    expect(missing, stderr).toHaveLength(1);
    expect(missing![0]).toContain('agent "gone", which no agent file here defines');
    expect(missing![0]).toContain('it runs once one does and the server restarts');
    expect(refused![0]).toContain('it runs once that setting allows the agent and the server restarts, or cancel it');
    expect(stderr).not.toMatch(new RegExp(`task ${ids.allowed} is held`));
  });
});
