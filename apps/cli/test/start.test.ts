import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie, startBirdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';
import { readPidFile, survives } from './helpers/processes.js';

let box: Sandbox;
let agents: string;
let skills: string;
beforeEach(async () => {
  box = await sandbox();
  agents = join(box.dir.path, 'agents');
  skills = join(box.dir.path, 'skills');
  await mkdir(agents);
  await mkdir(join(skills, 'guarded'), { recursive: true });
  // One tool that needs approval and one the agent pre-approves; both leave a file behind when they run.
  await writeFile(
    join(skills, 'guarded', 'SKILL.md'),
    `---
name: guarded
description: Writes marker files; both tools need approval.
enabled_by_default: true
---

## Tools

### write_marker
description: Write a marker file.
entrypoint: bash:echo marked > {file}
approval: required
schema:
  type: object
  properties:
    file:
      type: string
  required: [file]

### write_approved
description: Write another marker file.
entrypoint: bash:echo approved > {file}
approval: required
schema:
  type: object
  properties:
    file:
      type: string
  required: [file]
`,
  );
});
afterEach(async () => {
  await box.cleanup();
});

/** A scripted model answering `count` times with `text` (each reply is used once). */
async function script(replies: unknown[], name = 'script.json'): Promise<string> {
  const file = join(box.dir.path, name);
  await writeFile(file, JSON.stringify({ replies }));
  return file;
}
const answers = (count: number, text = 'tick') => Array.from({ length: count }, () => ({ text }));

async function agent(name: string, frontmatter: string, body = 'You are a test agent.'): Promise<void> {
  await writeFile(
    join(agents, `${name}.md`),
    `---\nname: ${name}\ndescription: A test agent.\n${frontmatter}\n---\n${body}\n`,
  );
}

function env(scriptFile: string): NodeJS.ProcessEnv {
  return { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: scriptFile };
}

function start(scriptFile: string, extra: string[] = [], timeoutMs = 60_000) {
  return startBirdie(['start', '--agents-dir', agents, '--skills-dir', skills, ...extra], {
    env: env(scriptFile),
    cwd: box.cwd,
    timeoutMs,
  });
}

async function runs() {
  const store = openStore({ home: box.home });
  try {
    return await store.runs.list({ userId: 'tester', limit: 1000 });
  } finally {
    await store.close();
  }
}

type LogLine = { event: string; [key: string]: unknown };
const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

describe('birdie start', { timeout: 90_000 }, () => {
  it('prints its agents with their next run, runs `every: 1s` on time, logs start and end, exits 0 on SIGTERM', async () => {
    await agent('ticker', 'every: 1s\nprompt: Say tick.');
    await agent('plain', 'skills: []');
    const p = start(await script(answers(30)));
    await p.waitFor('stdout', /ticker\s+every 1s\s+\d{4}-\d{2}-\d{2}T/);
    expect(p.stdout()).not.toMatch(/plain/);
    await p.waitFor('stderr', /(end ticker ok[^\n]*\n[\s\S]*){2}/);
    p.kill('SIGTERM');
    const done = await p.exited;
    expect(done.code).toBe(0);
    expect(done.stderr).toMatch(/start ticker \(every 1s\) session \d{4}-\d{2}-\d{2}_\d+/);
    expect(done.stderr).toMatch(/stopping \(SIGTERM\)/);
    const logged = await runs();
    expect(logged.length).toBeGreaterThanOrEqual(2);
    for (const run of logged)
      expect(run).toMatchObject({
        status: 'ok',
        trigger: 'every 1s',
        agent: { name: 'ticker' },
        answer: 'tick',
        userId: 'tester',
      });
    // One new session per run.
    expect(new Set(logged.map((r) => r.sessionId)).size).toBe(logged.length);
  });

  it('--json logs one object per line; nobody approves: a call needing approval is refused unless the agent pre-approves it', async () => {
    const marker = join(box.cwd, 'marker');
    const approved = join(box.cwd, 'approved');
    await agent(
      'careful',
      'every: 1h\nprompt: Write the markers.\nskills: [guarded]\napprove: [write_approved]',
    );
    const file = await script([
      {
        tool_calls: [
          { name: 'write_marker', args: { file: marker } },
          { name: 'write_approved', args: { file: approved } },
        ],
      },
      { text: 'One was refused.' },
    ]);
    const result = await birdie(
      ['start', '--agents-dir', agents, '--skills-dir', skills, '--json', '--once', 'careful'],
      {
        env: env(file),
        cwd: box.cwd,
      },
    );
    expect(result.code).toBe(1);
    const lines = jsonLines(result.stderr);
    expect(lines.map((l) => l.event)).toEqual(['run-start', 'run-end']);
    expect(lines[1]).toMatchObject({ status: 'rejected', refused: ['write_marker'], agent: 'careful' });
    const { existsSync } = await import('node:fs');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(approved)).toBe(true);
    const [run] = await runs();
    expect(run).toMatchObject({ status: 'rejected', trigger: 'once' });
    expect(run!.error).toMatch(/nobody can approve.*\(write_marker\)/);
    // `birdie logs` shows the refusal; `logs show` the messages and the answer.
    const logs = await birdie(['logs', '--status', 'rejected'], { env: box.env, cwd: box.cwd });
    expect(logs.stdout).toMatch(/rejected.*careful.*once.*refused: birdie start runs unattended/);
    const show = await birdie(['logs', 'show', String(run!.id)], { env: box.env, cwd: box.cwd });
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/› Write the markers\./);
    expect(show.stdout).toMatch(/write_marker/);
    expect(show.stdout).toMatch(/answer: One was refused\./);
  });

  it('--once with an unknown agent or one without triggers is a usage error naming the agents that have some', async () => {
    await agent('ticker', 'every: 1h\nprompt: Tick.');
    await agent('plain', 'skills: []');
    const file = await script(answers(1));
    const unknown = await birdie(['start', '--agents-dir', agents, '--once', 'tickr'], {
      env: env(file),
      cwd: box.cwd,
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /--once: no agent "tickr"\. Did you mean "ticker"\?.*Agents with triggers: ticker/,
    );
    const plain = await birdie(['start', '--agents-dir', agents, '--once', 'plain'], {
      env: env(file),
      cwd: box.cwd,
    });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/agent "plain" has no trigger/);
    const grace = await birdie(['start', '--grace', 'soon'], { env: env(file), cwd: box.cwd });
    expect(grace.code).toBe(2);
    expect(grace.stderr).toMatch(/--grace must be a number of seconds/);
  });

  it('watch: a change to a matching file runs the agent with the changed path; agent files added later load', async () => {
    await mkdir(join(box.cwd, 'notes'));
    await agent('watcher', 'watch: "notes/*.md"\ndebounce: 200ms\nprompt: Summarise the changes.');
    const p = start(await script([{ match: 'notes/today.md', text: 'Summarised.' }, ...answers(5, 'tock')]), [
      '--json',
      '--cwd',
      box.cwd,
    ]);
    await p.waitFor('stdout', /"agent":"watcher","trigger":"watch notes\/\*\.md","next":"on change"/);
    await writeFile(join(box.cwd, 'notes', 'ignored.txt'), 'x');
    await writeFile(join(box.cwd, 'notes', 'today.md'), '# today');
    await p.waitFor('stderr', /"event":"run-end","agent":"watcher"/);
    // A new agent file is picked up without a restart.
    await agent('late', 'every: 1s\nprompt: Tock.');
    await p.waitFor('stderr', /"event":"reloaded"/);
    await p.waitFor('stderr', /"event":"run-end","agent":"late"/);
    p.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    const watched = (await runs()).find((r) => r.agent?.name === 'watcher')!;
    expect(watched).toMatchObject({ status: 'ok', trigger: 'watch notes/today.md', answer: 'Summarised.' });
    const lines = jsonLines(p.stderr());
    expect(lines.find((l) => l.event === 'run-start' && l.agent === 'watcher')).toMatchObject({
      trigger: 'watch notes/today.md',
    });
  });

  it('SIGTERM during a run: the run gets --grace, then is cancelled, its tool processes die, exit 0', async () => {
    const pidfile = join(box.dir.path, 'sleep.pid');
    await agent('sleeper', 'every: 1s\nprompt: Sleep.\nskills: [sleeper]');
    const file = await script([
      { tool_calls: [{ name: 'slow_sleep', args: { seconds: '60', pidfile } }] },
      ...answers(5, 'woke'),
    ]);
    const p = startBirdie(['start', '--agents-dir', agents, '--skills-dir', TEST_SKILLS, '--grace', '0.5'], {
      env: env(file),
      cwd: box.cwd,
      timeoutMs: 60_000,
    });
    const sleepPid = await readPidFile(pidfile);
    expect(sleepPid).toBeGreaterThan(0);
    p.kill('SIGTERM');
    const done = await p.exited;
    expect(done.code).toBe(0);
    expect(done.stderr).toMatch(/stopping \(SIGTERM\): 1 run\(s\) active, up to 0\.5 s to finish/);
    expect(done.stderr).toMatch(/end sleeper cancelled/);
    expect(await survives(sleepPid)).toBe(false);
    const [run] = await runs();
    expect(run).toMatchObject({ status: 'cancelled', agent: { name: 'sleeper' } });
  });

  it('two birdie start processes on one database over 20 s with every: 1s never run a due time twice', async () => {
    await agent('ticker', 'every: 1s\nprompt: Tick.');
    const a = start(await script(answers(40), 'a.json'), ['--json']);
    const b = start(await script(answers(40), 'b.json'), ['--json']);
    await new Promise((resolve) => setTimeout(resolve, 20_000));
    a.kill('SIGTERM');
    b.kill('SIGTERM');
    const [da, db] = await Promise.all([a.exited, b.exited]);
    expect([da.code, db.code]).toEqual([0, 0]);
    const started = [...jsonLines(da.stderr), ...jsonLines(db.stderr)].filter((l) => l.event === 'run-start');
    const dues = started.map((l) => l.due as string);
    expect(new Set(dues).size).toBe(dues.length);
    // Both ran for 20 s: most due times ran (the machine is shared, so not an exact count).
    expect(dues.length).toBeGreaterThanOrEqual(10);
    const logged = await runs();
    expect(logged.length).toBe(dues.length);
    expect(logged.every((r) => r.status === 'ok')).toBe(true);
  });
});

describe('a run whose process is killed', { timeout: 90_000 }, () => {
  it('kill -9 during a tool: the next birdie process marks the run died', async () => {
    const pidfile = join(box.dir.path, 'sleep.pid');
    await agent('sleeper', 'every: 1h\nprompt: Sleep.\nskills: [sleeper]');
    const file = await script([{ tool_calls: [{ name: 'slow_sleep', args: { seconds: '60', pidfile } }] }]);
    const p = startBirdie(
      ['start', '--agents-dir', agents, '--skills-dir', TEST_SKILLS, '--once', 'sleeper'],
      {
        env: env(file),
        cwd: box.cwd,
      },
    );
    const sleepPid = await readPidFile(pidfile);
    expect(sleepPid).toBeGreaterThan(0);
    p.kill('SIGKILL');
    await p.gone;
    const logs = await birdie(['logs', '--json'], { env: box.env, cwd: box.cwd });
    const [run] = logs.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(run).toMatchObject({ status: 'died', trigger: 'once', pid: p.pid });
    expect(run.error).toMatch(new RegExp(`died: process ${p.pid} on .* stopped`));
    expect(run.toolCalls).toEqual([expect.objectContaining({ name: 'slow_sleep', resultUnknown: true })]);
    await survives(sleepPid);
  });

  it('kill -9 during a model call: the next birdie process marks the run died', async () => {
    await agent('waiter', 'every: 1h\nprompt: Wait.');
    // The scripted vendor answers 429 with a long Retry-After, under the 30 s a retry may wait (a longer one is not
    // waited for: the call fails at once): the model call stays in progress for 25 s.
    const file = await script([{ error: { status: 429, retry_after: 25 } }, { text: 'late' }]);
    const p = startBirdie(['start', '--agents-dir', agents, '--json', '--once', 'waiter'], {
      env: env(file),
      cwd: box.cwd,
    });
    await p.waitFor('stderr', /"event":"run-start"/);
    for (let i = 0; i < 100 && (await runs()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await runs())[0]?.status).toBe('running');
    p.kill('SIGKILL');
    await p.gone;
    const logs = await birdie(['logs', '--status', 'died', '--agent', 'waiter', '--since', '1h'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(logs.stdout).toMatch(/died.*waiter.*once/);
    expect((await runs())[0]).toMatchObject({ status: 'died', toolCalls: [] });
  });
});

describe('birdie logs --follow', { timeout: 60_000 }, () => {
  it('prints each run as it starts and as it ends, until SIGTERM', async () => {
    // A run that lasts a while (a 2 s tool), so that it is seen running as well as done.
    const pidfile = join(box.dir.path, 'sleep.pid');
    await agent('ticker', 'every: 1h\nprompt: Tick.\nskills: [sleeper]');
    const follow = startBirdie(['logs', '--follow', '--json', '--agent', 'ticker'], {
      env: box.env,
      cwd: box.cwd,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const file = await script([
      { tool_calls: [{ name: 'slow_sleep', args: { seconds: '2', pidfile } }] },
      { text: 'done' },
    ]);
    const once = await birdie(
      ['start', '--agents-dir', agents, '--skills-dir', TEST_SKILLS, '--once', 'ticker'],
      {
        env: env(file),
        cwd: box.cwd,
      },
    );
    expect(once.code).toBe(0);
    await follow.waitFor('stdout', /"status":"ok"/);
    follow.kill('SIGTERM');
    const done = await follow.exited;
    expect(done.code).toBe(0);
    const lines = done.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: number; status: string; answer?: string });
    expect(lines.map((l) => [l.id, l.status])).toEqual([
      [1, 'running'],
      [1, 'ok'],
    ]);
    expect(lines[1]!.answer).toBe('done');
  });
});
