import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { STARTED_TOOL_RESULT } from '@birdie/graph';
import { type PostgresServer, startPostgres } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';
import { processesWithEnv, survives } from './helpers/processes.js';
import { makeToken, type StreamEvent, startWorker, streamEvents, type Worker } from './helpers/serve.js';
import { STORE_SKILLS } from './helpers/sessions.js';

// Issue 17: two `birdie serve` workers that share nothing but one PostgreSQL database (each has its own BIRDIE_HOME,
// like two machines). Any worker continues any session: history, approvals, the session's files, a crashed turn.

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let pg: PostgresServer;
let box: Sandbox;
let env: NodeJS.ProcessEnv;
let w1: Worker;
let w2: Worker;
let alice: string;
let start: (name: 'w1' | 'w2' | 'w3') => Promise<Worker>;
let bob: string;
let workspaces: string;
const files = { started: '', release: '', pid: '', effects: '', mcpPid: '', mcpEnd: '' };
// One turn with a tool call, scripted alike for a worker and for `birdie run --json`.
const SHOUT = [
  { match: 'shout it', tool_calls: [{ name: 'shout', args: { text: 'same events' } }] },
  { match: 'shout it', text: 'Shouted.' },
];
const PID_SERVER = join(CLI_ROOT, 'test', 'fixtures', 'mcp', 'pid-server.mjs');

beforeAll(async () => {
  pg = await startPostgres();
  box = await sandbox({
    BIRDIE_BUNDLED_SKILLS: BUNDLED,
    BIRDIE_DATABASE_URL: pg.url,
    BIRDIE_DATABASE_SCHEMA: `serve_${process.pid}`,
  });
  // Shell tools run sandboxed in alice's workspace (under one root all workers share): the files they write are there.
  workspaces = join(box.dir.path, 'workspaces');
  files.started = join(workspaces, 'alice', 'started.txt');
  files.release = join(workspaces, 'alice', 'release');
  files.pid = join(workspaces, 'alice', 'sleep.pid');
  files.effects = join(workspaces, 'alice', 'effects.txt');
  files.mcpPid = join(box.dir.path, 'mcp.pid');
  files.mcpEnd = join(box.dir.path, 'mcp-ended.txt');
  // A stdio MCP server skill, for the worker that is stopped (w3) only.
  const mcpSkills = join(box.dir.path, 'mcp-skills');
  await mkdir(join(mcpSkills, 'pid-server'), { recursive: true });
  await writeFile(
    join(mcpSkills, 'pid-server', 'SKILL.md'),
    `---\nname: pid-server\ndescription: An MCP server that tells its pid\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: ${JSON.stringify(process.execPath)}\n  args: ${JSON.stringify([PID_SERVER, files.mcpPid, files.mcpEnd])}\n---\n`,
  );
  // Each worker has its own scripted model (its replies are used once each, per process).
  const gated = (token: string) => ({
    name: 'gated_step',
    args: { token, started: 'started.txt', release: 'release' },
  });
  const scripts = {
    w1: [
      {
        match: 'plan alpha',
        tool_calls: [
          { name: 'todo_create_plan', args: { steps: ['Alpha first step', 'Alpha second step'] } },
        ],
      },
      { match: 'plan alpha', text: 'Alpha is planned.' },
      {
        match: 'list files',
        tool_calls: [{ name: 'run_command', args: { command: 'echo listed-by-the-tool' } }],
      },
      { match: 'hold on', tool_calls: [gated('busy')] },
      { match: 'hold on', text: 'Held.' },
      { match: 'warm up', text: 'Warm.' },
      // A step that completes, then one that is cut off by kill -9.
      {
        match: 'slow step',
        tool_calls: [
          { name: 'append_token', args: { delay: '0', token: 'done-before', file: 'effects.txt' } },
        ],
      },
      { match: 'slow step', tool_calls: [gated('crash')] },
    ],
    w2: [
      { match: 'show the plan', tool_calls: [{ name: 'todo_show_plan', args: {} }] },
      { match: 'show the plan', text: "That is this session's plan." },
      { match: 'list files', text: 'Listed.' },
      { match: 'after the crash', text: 'Carried on.' },
      { match: 'after the stop', text: 'Still here.' },
      ...SHOUT,
    ],
    w3: [
      { match: 'stuck', tool_calls: [{ name: 'slow_sleep', args: { seconds: '60', pidfile: 'sleep.pid' } }] },
    ],
  };
  start = async (name: 'w1' | 'w2' | 'w3') => {
    const script = join(box.dir.path, `${name}.json`);
    await writeFile(script, JSON.stringify({ replies: scripts[name] }));
    const extra = name === 'w3' ? ['--skills-dir', mcpSkills] : [];
    // The operator lets API sessions use the raw-command test skill and w3's MCP server skill (named: a pattern never
    // covers either).
    const home = join(box.dir.path, `home-${name}`);
    await mkdir(home, { recursive: true });
    await writeFile(
      join(home, 'config.json'),
      JSON.stringify({ settings: { serve: { skills: ['*', 'raw-shell', 'pid-server'] } } }),
    );
    return startWorker(
      [
        '--skills-dir',
        TEST_SKILLS,
        '--skills-dir',
        STORE_SKILLS,
        ...extra,
        '--grace',
        '1',
        '--workspaces',
        workspaces,
      ],
      {
        env: { ...env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
        cwd: box.cwd,
        home,
      },
    );
  };
  env = box.env;
  // The schema is made (migrated) by the first command that opens the database.
  alice = await makeToken('alice', { env, cwd: box.cwd });
  bob = await makeToken('bob', { env, cwd: box.cwd });
  [w1, w2] = await Promise.all([start('w1'), start('w2')]);
}, 120_000);

afterAll(async () => {
  await writeFile(files.release, '').catch(() => {});
  for (const w of [w1, w2]) w?.process.kill('SIGKILL');
  await box?.cleanup();
  await pg?.stop();
});

const newSession = async (w: Worker, body: unknown = {}) => {
  const response = await w.request('/v1/sessions', { token: alice, json: body });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
};
const turn = (w: Worker, id: string, prompt: string, token = alice) =>
  w.request(`/v1/sessions/${id}/turns`, { token, json: { prompt } });
const outputs = (events: StreamEvent[]) =>
  events
    .filter((e) => e.type === 'tool-end')
    .map((e) => ({ name: e.name, ok: e.ok, output: String(e.output) }));
const messagesOf = async (w: Worker, id: string) =>
  (
    (await (await w.request(`/v1/sessions/${id}`, { token: alice })).json()) as {
      messages: Array<{
        role: string;
        content: string;
        tool_call_id?: string;
        tool_calls?: Array<{ id: string }>;
      }>;
    }
  ).messages;

/**
 * POSTs a body of `bytes` (declared in Content-Length) and reads the answer. The server answers 413 from the header
 * and closes the connection, so the client sends only the start of the body: writing all of it would race the close
 * (EPIPE on a loaded machine) and prove nothing more.
 */
function oversizedPost(url: string, token: string, bytes: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': bytes,
        },
      },
      (res) => {
        answered = true;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.write(`{"prompt":"${'x'.repeat(64 * 1024)}`);
  });
}

describe('two birdie serve workers on one PostgreSQL database', { timeout: 120_000 }, () => {
  it('a session made on one worker is continued on the other, and the todo plan written on one is seen on the other', async () => {
    const id = await newSession(w1, { enable: ['todo'] });
    const first = await streamEvents(await turn(w1, id, 'plan alpha please'));
    expect(first[0]).toMatchObject({ type: 'session', id, user: 'alice' });
    expect(first.at(-1)).toMatchObject({ type: 'result', status: 'ok', session: id });
    expect(outputs(first)).toEqual([
      { name: 'todo_create_plan', ok: true, output: expect.stringContaining('Alpha first step') },
    ]);
    // Worker 2 has never seen this session: no folder of it in its home until the turn.
    expect(existsSync(join(w2.home, 'sessions', id))).toBe(false);
    const second = await streamEvents(await turn(w2, id, 'show the plan'));
    expect(second.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    const [shown] = outputs(second);
    expect(shown).toMatchObject({ name: 'todo_show_plan', ok: true });
    expect(shown!.output).toContain('Alpha first step');
    expect(shown!.output).toContain('Alpha second step');
    // The whole conversation, read through either worker.
    const contents = (await messagesOf(w1, id)).map((m) => `${m.role}:${m.content}`);
    expect(contents).toEqual(
      expect.arrayContaining(['human:plan alpha please', 'ai:Alpha is planned.', 'human:show the plan']),
    );
    expect(contents.at(-1)).toBe("ai:That is this session's plan.");
    // Titled from the first prompt, whoever's session it is (not the worker's own user).
    const shownSession = (await (await w2.request(`/v1/sessions/${id}`, { token: alice })).json()) as {
      title?: string;
    };
    expect(shownSession.title).toBe('plan alpha please');
  });

  it('an approval asked by one worker is answered through the other, which runs the rest of the turn', async () => {
    const id = await newSession(w1, { enable: ['raw-shell'] });
    const asked = await streamEvents(await turn(w1, id, 'list files'));
    const last = asked.at(-1)!;
    expect(last.type).toBe('approval-request');
    // One done per stream: the turn's, just before the question.
    expect(asked.filter((e) => e.type === 'done')).toEqual([{ type: 'done', status: 'interrupted' }]);
    expect(asked.at(-2)).toEqual({ type: 'done', status: 'interrupted' });
    const [request] = last.requests as Array<{ id: string; tool: string; args: Record<string, unknown> }>;
    expect(request).toMatchObject({ tool: 'run_command', args: { command: 'echo listed-by-the-tool' } });
    const pending = (await (await w2.request(`/v1/sessions/${id}`, { token: alice })).json()) as {
      pendingApprovals: Array<{ id: string }>;
    };
    expect(pending.pendingApprovals.map((p) => p.id)).toEqual([request!.id]);

    const answered = await w2.request(`/v1/sessions/${id}/approvals`, {
      token: alice,
      json: { decisions: { [request!.id]: { type: 'approve' } } },
    });
    expect(answered.status).toBe(200);
    const rest = await streamEvents(answered);
    expect(outputs(rest)).toEqual([{ name: 'run_command', ok: true, output: 'listed-by-the-tool\n' }]);
    expect(rest.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    expect(rest.filter((e) => e.type === 'done')).toEqual([{ type: 'done', status: 'ok' }]);
    // Answered once: a second answer finds nothing pending.
    const again = await w1.request(`/v1/sessions/${id}/approvals`, {
      token: alice,
      json: { decisions: { [request!.id]: { type: 'approve' } } },
    });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('nothing-pending');
  });

  it('401 without a token, 404 for another user’s session, 413 for an oversized body', async () => {
    const id = await newSession(w1);
    const anonymous = await w2.request('/v1/sessions');
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'unauthorized' } });
    for (const w of [w1, w2]) {
      const foreign = await w.request(`/v1/sessions/${id}`, { token: bob });
      expect(foreign.status).toBe(404);
      expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('not-found');
      expect((await turn(w, id, 'hi', bob)).status).toBe(404);
    }
    const huge = await oversizedPost(`${w2.url}/v1/sessions/${id}/turns`, alice, 2 * 1024 * 1024);
    expect(huge.status).toBe(413);
    expect((JSON.parse(huge.body) as { error: { code: string } }).error.code).toBe('payload-too-large');
    // Nothing leaks: no stack, no server address.
    // A filter that is no session id is the request's mistake: 400 naming it (it was a bare 404).
    const runs = await w1.request('/v1/runs?session=nope', { token: alice });
    expect(runs.status).toBe(400);
    expect(await runs.text()).not.toMatch(/at .*\.js|postgres/);
  });

  it('a NUL in a run filter is 400 naming the filter, never the database’s address', async () => {
    for (const filter of ['agent=%00', 'agent=a%00b', 'session=%00']) {
      const response = await w1.request(`/v1/runs?${filter}`, { token: alice });
      expect(response.status, filter).toBe(400);
      const text = await response.text();
      expect(JSON.parse(text).error.code, filter).toBe('invalid-request');
      expect(text, filter).not.toMatch(/postgres|birdie@|host=|\/tmp\//);
    }
  });

  it('a concurrent turn of one session is 409 "session busy", on the same worker and on the other', async () => {
    const id = await newSession(w1);
    const started = await readFile(files.started, 'utf8').catch(() => '');
    const running = turn(w1, id, 'hold on');
    // The tool is running once it has written its token.
    while (!(await readFile(files.started, 'utf8').catch(() => '')).slice(started.length).includes('busy'))
      await pause(50);
    for (const w of [w2, w1]) {
      const second = await turn(w, id, 'hold on again');
      expect(second.status).toBe(409);
      expect(((await second.json()) as { error: { code: string; message: string } }).error).toEqual({
        code: 'session-busy',
        message: `session ${id} is busy: another turn is running on it; try again when it ends`,
      });
    }
    await writeFile(files.release, '');
    const done = await streamEvents(await running);
    expect(done.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    await rm(files.release);
  });

  it('kill -9 of a worker mid-tool: the other continues the session, the call repaired as "started, result unknown", no completed step lost', async () => {
    const id = await newSession(w1);
    const warm = await streamEvents(await turn(w1, id, 'warm up'));
    expect(warm.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    const before = await messagesOf(w2, id);
    expect(before.map((m) => m.content)).toEqual(['warm up', 'Warm.']);

    const started = await readFile(files.started, 'utf8').catch(() => '');
    const doomed = turn(w1, id, 'slow step').catch(() => undefined);
    while (!(await readFile(files.started, 'utf8').catch(() => '')).slice(started.length).includes('crash'))
      await pause(50);
    w1.process.kill('SIGKILL');
    await w1.process.gone;
    await doomed;

    const after = await streamEvents(await turn(w2, id, 'after the crash'));
    expect(after.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    const messages = await messagesOf(w2, id);
    // Everything that was saved is there, in order: the earlier turn, the step of the killed turn that completed
    // (its call and its result, not run again), and the cut-off call with its placeholder answer.
    expect(messages.slice(0, 3).map((m) => m.content)).toEqual(['warm up', 'Warm.', 'slow step']);
    const [done, call] = messages.filter((m) => m.tool_calls?.length).map((m) => m.tool_calls![0]!);
    expect(done).toBeDefined();
    expect(call).toBeDefined();
    const answerOf = (callId: string) =>
      messages.find((m) => m.role === 'tool' && m.tool_call_id === callId)?.content;
    expect(answerOf(done!.id)).toBe('appended done-before\n');
    expect(answerOf(call!.id)).toBe(STARTED_TOOL_RESULT);
    expect(await readFile(files.effects, 'utf8')).toBe('done-before\n');
    expect(messages.map((m) => m.content).slice(-2)).toEqual(['after the crash', 'Carried on.']);

    // The run log agrees: the killed run died (its process did), its call started with its result unknown.
    const runs = (await (await w2.request(`/v1/runs?session=${id}`, { token: alice })).json()) as {
      runs: Array<{
        status: string;
        toolCalls: Array<{ callId?: string; status: string; resultUnknown: boolean }>;
      }>;
    };
    expect(runs.runs.map((r) => r.status)).toEqual(['ok', 'died', 'ok']);
    expect(runs.runs[1]!.toolCalls).toEqual([
      expect.objectContaining({ callId: done!.id, status: 'ok', resultUnknown: false }),
      expect.objectContaining({ callId: call!.id, status: 'started', resultUnknown: true }),
    ]);
  });
});

describe('the event stream', { timeout: 60_000 }, () => {
  it('is the same typed events, in the same order, as birdie run --json prints for the same turn', async () => {
    const id = await newSession(w2, { enable: ['echoer'] });
    const served = await streamEvents(await turn(w2, id, 'shout it'));
    const script = join(box.dir.path, 'run-shout.json');
    await writeFile(script, JSON.stringify({ replies: SHOUT }));
    const ran = await birdie(
      [
        ...['run', '--json', '--user', 'alice', '--enable', 'echoer'],
        ...['--skills-dir', TEST_SKILLS, '--skills-dir', STORE_SKILLS, 'shout it'],
      ],
      { env: { ...env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script }, cwd: box.cwd },
    );
    expect(ran.code, ran.stderr).toBe(0);
    const printed = ran.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as StreamEvent);
    // Only what differs by nature: the session's id, and ids and times that are new on every run. The first event
    // is each side's own: the CLI adds where its provider settings came from, which an API client has no use for.
    const runId = String(printed[0]!.id);
    expect(printed[0]).toMatchObject({ sources: expect.any(Object) });
    delete printed[0]!.sources;
    const same = (events: StreamEvent[], session: string) =>
      JSON.parse(
        JSON.stringify(events)
          .replaceAll(session, 'SESSION')
          .replace(/"(id|callId|tool_call_id|runId)":"[^"]*"/g, '"$1":"ID"')
          .replace(/"(ms|durationMs|at|startedAt|endedAt)":[^,}]*/g, '"$1":0'),
      );
    expect(served.map((e) => e.type)).toContain('tool-end');
    expect(same(served, id)).toEqual(same(printed, runId));
  });
});

describe('a worker that is told to stop', { timeout: 120_000 }, () => {
  it('SIGTERM: the running turn is cancelled after the grace period, its tool and MCP server end, the worker exits 0, and the session goes on elsewhere', async () => {
    const w3 = await start('w3');
    try {
      const id = await newSession(w3);
      const running = turn(w3, id, 'stuck');
      while (!existsSync(files.pid)) await pause(50);
      // The tool runs sandboxed (its own PID namespace: the pid it wrote is not the host's): found by its session.
      const sleepers = await processesWithEnv(`BIRDIE_SESSION_DIR=${join(w3.home, 'sessions', id)}`);
      expect(sleepers.length).toBeGreaterThan(0);
      // The session's MCP server was started for the turn (before the model's call).
      const mcp = Number((await readFile(files.mcpPid, 'utf8')).trim());
      expect(existsSync(files.mcpEnd)).toBe(false);
      w3.process.kill('SIGTERM');
      const events = await streamEvents(await running);
      expect(events.at(-1)).toMatchObject({ type: 'result', status: 'cancelled' });
      const exited = await w3.process.exited;
      expect(exited.code, exited.stderr).toBe(0);
      expect(exited.stderr).toContain('stopped (0 turn(s) finished, 1 cancelled)');
      // Ended (a zombie waiting for PID 1 to reap it counts as ended).
      for (const sleeper of sleepers) expect(await survives(sleeper)).toBe(false);
      // The MCP server was closed (it saw its stdin end or a SIGTERM), not left running or only killed.
      expect(await readFile(files.mcpEnd, 'utf8')).toMatch(/^(stdin closed|SIGTERM)\n$/);
      expect(await survives(mcp)).toBe(false);
      // The lease went with the worker: another one continues at once.
      const next = await streamEvents(await turn(w2, id, 'after the stop'));
      expect(next.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    } finally {
      w3.process.kill('SIGKILL');
    }
  });
});

describe('the database for every command', { timeout: 60_000 }, () => {
  it('birdie db status and db migrate report and apply the migrations of a schema', async () => {
    const fresh = { ...env, BIRDIE_DATABASE_SCHEMA: `fresh_${process.pid}` };
    const before = await birdie(['db', 'status', '--json'], { env: fresh, cwd: box.cwd });
    expect(before.code).toBe(1);
    expect(JSON.parse(before.stdout)).toMatchObject({
      kind: 'postgres',
      current: 0,
      pending: [
        'initial',
        'run-agent',
        'run-log',
        'session-files-tokens',
        'compact-checkpoint-keys',
        'writes-in-checkpoint-rows',
        'turn-events',
        'token-roles',
        'per-user-numbers',
        'run-notices',
        'channel-deliveries',
        'task-failures',
        'task-grants',
        'task-origin',
        'revoked-tokens',
        'turn-admissions',
        'session-numbers',
      ],
    });
    expect(before.stdout).not.toContain('password');
    const migrated = await birdie(['db', 'migrate'], { env: fresh, cwd: box.cwd });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/schema fresh_\d+: version 17 of 17, up to date/);
    const after = await birdie(['db', 'status'], { env: fresh, cwd: box.cwd });
    expect(after.code).toBe(0);
  });

  it('database_url in the config file selects PostgreSQL too (tokens, sessions: the same data as the workers)', async () => {
    const { BIRDIE_DATABASE_URL, ...rest } = env;
    const home = join(box.dir.path, 'home-config');
    await mkdir(home, { recursive: true });
    await writeFile(
      join(home, 'config.json'),
      JSON.stringify({ settings: { database_url: BIRDIE_DATABASE_URL } }),
    );
    const configured = { ...rest, BIRDIE_HOME: home };
    const status = await birdie(['db', 'status', '--json'], { env: configured, cwd: box.cwd });
    expect(JSON.parse(status.stdout)).toMatchObject({ kind: 'postgres', current: 17, latest: 17 });
    const tokens = await birdie(['tokens', 'list', '--json'], { env: configured, cwd: box.cwd });
    expect(
      tokens.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).userId),
    ).toEqual(['alice', 'bob']);
    const sessions = await birdie(['sessions', 'list', '--user', 'alice', '--json'], {
      env: configured,
      cwd: box.cwd,
    });
    expect(sessions.code, sessions.stderr).toBe(0);
    expect(sessions.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(5);
    // Without either, the SQLite file as before.
    const plain = await birdie(['db', 'status', '--json'], {
      env: { ...rest, BIRDIE_HOME: join(box.dir.path, 'home-plain') },
      cwd: box.cwd,
    });
    expect(JSON.parse(plain.stdout)).toMatchObject({ kind: 'sqlite' });
  });

  it('birdie tokens: a token works on any worker until `tokens revoke`, at once; list never shows it', async () => {
    const made = await birdie(['tokens', 'create', '--user', 'carol', '--name', 'ci', '--json'], {
      env,
      cwd: box.cwd,
    });
    expect(made.code, made.stderr).toBe(0);
    const { id, token, userId } = JSON.parse(made.stdout) as { id: string; token: string; userId: string };
    expect(userId).toBe('carol');
    expect((await w2.request('/v1/sessions', { token })).status).toBe(200);
    const listed = await birdie(['tokens', 'list', '--user', 'carol', '--json'], { env, cwd: box.cwd });
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([id]);
    expect(listed.stdout).not.toContain(token);
    const revoked = await birdie(['tokens', 'revoke', id], { env, cwd: box.cwd });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain(`token ${id} revoked`);
    const refused = await w2.request('/v1/sessions', { token });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const again = await birdie(['tokens', 'revoke', id], { env, cwd: box.cwd });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`token ${id} was already revoked on `);
  });
});
