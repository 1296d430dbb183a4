import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BirdieProcess, birdie, startBirdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { taskRuns } from './helpers/task-runs.js';
import { until as poll } from './helpers/until.js';

// Report: a recurring task naming an agent whose file was removed ran at every firing anyway: each one made a new
// session and logged an `error` run ("There is no agent …"), forever (a task every minute: 1,440 sessions and failed
// runs a day). Now `birdie start` holds it: it says so once, fires nothing, makes no session, and runs the task again
// once an agent file defines that agent again (agent files are watched).

let box: Sandbox;
let project: string;
let start: BirdieProcess | undefined;
const ids = { ticker: 0, witness: 0 };
const agentFile = () => join(project, '.birdie', 'agents', 'ticker.md');
const TICKER = `---
name: ticker
description: Ticks.
---
You tick.
`;

async function store<T>(fn: (s: ReturnType<typeof openStore>) => Promise<T>): Promise<T> {
  const s = openStore({ home: box.home });
  try {
    return await fn(s);
  } finally {
    s.close();
  }
}

const runsOf = (task: number) => taskRuns(box.home, 'tester', task);
const until = (what: string, done: () => Promise<boolean>) =>
  poll(what, done, { context: () => start?.stderr() ?? '' });

beforeAll(async () => {
  box = await sandbox();
  project = join(box.cwd, 'proj');
  await mkdir(join(project, '.birdie', 'agents'), { recursive: true });
  const script = join(box.dir.path, 'script.json');
  const replies = [
    ...Array.from({ length: 300 }, () => ({ match: '^tick', text: 'ticked' })),
    ...Array.from({ length: 300 }, () => ({ match: '^witness', text: 'seen' })),
  ];
  await writeFile(script, JSON.stringify({ replies }));
  box.env = { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script };
  // The project was trusted with its agent file, which was then removed (trust covers the files it saw).
  await writeFile(agentFile(), TICKER);
  expect((await birdie(['trust', project], { env: box.env, cwd: project })).code).toBe(0);
  await rm(agentFile());
  // Both every second; the ticker's agent has no file (it was removed), the witness names none.
  await store(async (s) => {
    ids.ticker = (await s.tasks.create({ userId: 'tester', prompt: 'tick', every: 1, agent: 'ticker' })).id;
    ids.witness = (await s.tasks.create({ userId: 'tester', prompt: 'witness', every: 1 })).id;
  });
  start = startBirdie(['start'], { env: box.env, cwd: project, timeoutMs: 200_000 });
}, 60_000);

afterAll(async () => {
  start?.kill('SIGKILL');
  await box?.cleanup();
});

describe('birdie start and a recurring task whose agent has no file', { timeout: 200_000 }, () => {
  it('holds it, saying so once: no run, no session, while the witness task runs', async () => {
    await until('the witness task ran four times', async () => (await runsOf(ids.witness)).length >= 4);
    expect(await runsOf(ids.ticker), start!.stderr()).toEqual([]);
    const sessions = await store((s) => s.sessions.list('tester'));
    expect(sessions.filter((s) => s.title?.startsWith('ticker'))).toEqual([]);
    const line = `task ${ids.ticker}\\b[^\\n]*held[^\\n]*"ticker"[^\\n]*`;
    const said = start!.stderr().match(new RegExp(line, 'g'));
    expect(said, start!.stderr()).toHaveLength(1);
    expect(said![0]).toMatch(new RegExp(`birdie tasks cancel ${ids.ticker}`));
  });

  it('runs it again once an agent file defines the agent, and holds it again when that file goes', async () => {
    await writeFile(agentFile(), TICKER);
    await until('a run of the ticker task', async () =>
      (await runsOf(ids.ticker)).some((r) => r.status === 'ok'),
    );
    const ran = (await runsOf(ids.ticker)).find((r) => r.status === 'ok')!;
    expect(ran).toMatchObject({ answer: 'ticked', agent: { name: 'ticker' } });

    await rm(agentFile());
    const line = new RegExp(`task ${ids.ticker}\\b[^\\n]*held[^\\n]*"ticker"`, 'g');
    await until('the hold said again', async () => (start!.stderr().match(line) ?? []).length === 2);
    // Once held again, the witness runs on and the ticker does not (a firing already under way may end first).
    const before = (await runsOf(ids.ticker)).length;
    const witnessed = (await runsOf(ids.witness)).length;
    await until(
      'the witness ran four more times',
      async () => (await runsOf(ids.witness)).length >= witnessed + 4,
    );
    const after = await runsOf(ids.ticker);
    expect(after.length, start!.stderr()).toBe(before);
    expect(
      after.filter((r) => r.status !== 'ok'),
      start!.stderr(),
    ).toEqual([]);
  });
});
