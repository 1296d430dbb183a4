import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CRASH_SAFE_SETTINGS, type PostgresServer, startPostgres } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import {
  makeToken,
  readThenCut,
  type StreamEvent,
  startWorker,
  streamEvents,
  type Worker,
} from './helpers/serve.js';

// Issue 27, the whole team server end to end: two users (alice, bob) on two `birdie serve` workers over one
// PostgreSQL, with the operator's policy, a workspace per user on one shared root, the sandbox, a turn submitted once
// and followed from the other worker, and a PostgreSQL restart in the middle of a turn. A third worker with the
// default policy shows what the operator's opt-in changes.

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');
const SECRET = 'alice secret\n';
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Bash tools with data arguments (none raw): they plant a link, record an effect, and hold a turn until released.
// `hold` waits for a file the test makes in the user's workspace (bound into the sandbox as the tool's folder).
const PROBE_SKILL = `---
name: probe
description: Probes for the team server test
enabled_by_default: true
---

## Tools

### plant_link
description: Make a symbolic link.
entrypoint: bash:ln -s -- {target} {name}
schema:
  type: object
  properties:
    target:
      type: string
    name:
      type: string
  required: [target, name]

### tally
description: Append a word to tally.txt.
entrypoint: bash:echo {word} >> tally.txt
schema:
  type: object
  properties:
    word:
      type: string
  required: [word]

### hold
description: Wait until released.
entrypoint: bash:touch holding; while [ ! -e release ]; do sleep 0.1; done; rm -f release holding; echo released
timeout: 120
`;

let pg: PostgresServer;
let box: Sandbox;
let root: string;
let w0: Worker;
let w1: Worker;
let w2: Worker;
const tokens = { alice: '', bob: '' };
type User = keyof typeof tokens;

beforeAll(async () => {
  pg = await startPostgres({ settings: CRASH_SAFE_SETTINGS });
  box = await sandbox({
    BIRDIE_BUNDLED_SKILLS: BUNDLED,
    BIRDIE_DATABASE_URL: pg.url,
    BIRDIE_DATABASE_SCHEMA: `team_${process.pid}`,
  });
  root = join(box.dir.path, 'shared', 'workspaces');
  const skills = join(box.dir.path, 'skills');
  await mkdir(join(skills, 'probe'), { recursive: true });
  await writeFile(join(skills, 'probe', 'SKILL.md'), PROBE_SKILL);
  const aliceNotes = join(root, 'alice', 'alice-notes.txt');
  const scripts: Record<'w0' | 'w1' | 'w2', unknown[]> = {
    w0: [],
    w1: [
      {
        match: 'alice writes',
        tool_calls: [{ name: 'write_file', args: { path: 'alice-notes.txt', content: SECRET } }],
      },
      { match: 'alice writes', text: 'Written.' },
      {
        match: 'alice shell',
        tool_calls: [{ name: 'run_bash', args: { command: 'pwd; ls -A ..; grep -c : /proc/net/dev' } }],
      },
      { match: 'alice shell', text: 'Looked.' },
      { match: 'alice tallies', tool_calls: [{ name: 'tally', args: { word: 'once' } }] },
      { match: 'alice tallies', tool_calls: [{ name: 'hold', args: {} }] },
      { match: 'alice tallies', text: 'Tallied.' },
      { match: 'alice holds', tool_calls: [{ name: 'tally', args: { word: 'kept' } }] },
      { match: 'alice holds', tool_calls: [{ name: 'hold', args: {} }] },
      { match: 'alice holds', text: 'Held.' },
    ],
    w2: [
      {
        match: 'bob escapes',
        tool_calls: [
          { name: 'read_file', args: { path: 'alice-notes.txt' } },
          { name: 'read_file', args: { path: '../alice/alice-notes.txt' } },
          { name: 'read_file', args: { path: aliceNotes } },
          { name: 'plant_link', args: { target: aliceNotes, name: 'link.txt' } },
        ],
      },
      { match: 'bob escapes', tool_calls: [{ name: 'read_file', args: { path: 'link.txt' } }] },
      { match: 'bob escapes', text: 'Tried.' },
      { match: 'alice is back', text: 'Back again.' },
    ],
  };
  const start = async (name: 'w0' | 'w1' | 'w2') => {
    const script = join(box.dir.path, `${name}.json`);
    const home = join(box.dir.path, `home-${name}`);
    await mkdir(home, { recursive: true });
    await writeFile(script, JSON.stringify({ replies: scripts[name] }));
    // w1 and w2: the operator allows the Shell skill by name; w0 keeps the default policy (every skill but raw ones).
    const serve = { workspaces: root, ...(name === 'w0' ? {} : { skills: ['*', 'shell'] }) };
    await writeFile(join(home, 'config.json'), JSON.stringify({ settings: { serve } }));
    return startWorker(['--skills-dir', skills, '--grace', '1'], {
      env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
      cwd: box.cwd,
      home,
    });
  };
  for (const user of ['alice', 'bob'] as const)
    tokens[user] = await makeToken(user, { env: box.env, cwd: box.cwd });
  [w0, w1, w2] = await Promise.all([start('w0'), start('w1'), start('w2')]);
}, 240_000);

afterAll(async () => {
  for (const w of [w0, w1, w2]) w?.process.kill('SIGKILL');
  await box?.cleanup();
  await pg?.stop();
});

const newSession = async (w: Worker, user: User, enable: string[]) => {
  const response = await w.request('/v1/sessions', { token: tokens[user], json: { enable } });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
};
const post = (w: Worker, user: User, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${w.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[user]}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const turn = (w: Worker, user: User, id: string, prompt: string, headers: Record<string, string> = {}) =>
  post(w, user, `/v1/sessions/${id}/turns`, { prompt }, headers);
const results = (events: StreamEvent[]) =>
  events
    .filter((e) => e.type === 'tool-end')
    .map((e) => ({ name: e.name, ok: e.ok, output: String(e.output) }));

/** Answers every approval the stream ended with (approve), on `w`, and returns the rest of the turn. */
async function approveAll(w: Worker, user: User, id: string, events: StreamEvent[]): Promise<StreamEvent[]> {
  const last = events.at(-1)!;
  expect(last.type).toBe('approval-request');
  const decisions = Object.fromEntries(
    (last.requests as Array<{ id: string }>).map((r) => [r.id, { type: 'approve' }]),
  );
  return streamEvents(await post(w, user, `/v1/sessions/${id}/approvals`, { decisions }));
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await Promise.resolve(check()).catch(() => false)) return;
    await pause(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const alive = (w: Worker) => w.process.child.exitCode === null && w.process.child.signalCode === null;

describe('the team server: two users, two workers, one PostgreSQL', { timeout: 180_000 }, () => {
  it('bob cannot enable shell unless the operator allowed it by name', async () => {
    const refused = await w0.request('/v1/sessions', { token: tokens.bob, json: { enable: ['shell'] } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('skill-not-allowed');
    const listed = (await (await w0.request('/v1/skills', { token: tokens.bob })).json()) as {
      skills: Array<{ name: string }>;
    };
    expect(listed.skills.map((s) => s.name)).not.toContain('shell');
    // The operator of w1 and w2 named it: there the same request is accepted.
    expect(
      (await w1.request('/v1/sessions', { token: tokens.bob, json: { enable: ['shell'] } })).status,
    ).toBe(201);
  });

  it("alice's files are invisible to bob on the other worker: by name, .., absolute path and a planted symlink", async () => {
    const alices = await newSession(w1, 'alice', ['filesystem']);
    const written = await approveAll(
      w1,
      'alice',
      alices,
      await streamEvents(await turn(w1, 'alice', alices, 'alice writes her notes')),
    );
    expect(results(written)).toMatchObject([{ name: 'write_file', ok: true }]);
    expect(await readFile(join(root, 'alice', 'alice-notes.txt'), 'utf8')).toBe(SECRET);

    const bobs = await newSession(w2, 'bob', ['filesystem']);
    const events = await streamEvents(await turn(w2, 'bob', bobs, 'bob escapes'));
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    expect(JSON.stringify(events)).not.toContain('alice secret');
    const got = results(events);
    const result = (name: string, text: string) =>
      got.find((r) => r.name === name && r.output.includes(text)) ?? { name, text, missing: true };
    expect(got).toHaveLength(5);
    expect(result('read_file', 'No such file: "alice-notes.txt"')).toMatchObject({ ok: false });
    expect(result('read_file', '"../alice/alice-notes.txt"')).toMatchObject({ ok: false });
    expect(result('read_file', 'is outside the working directory')).toMatchObject({ ok: false });
    expect(result('plant_link', '')).toMatchObject({ ok: true });
    expect(result('read_file', 'through a symbolic link')).toMatchObject({ ok: false });
  });

  it("an allowed run_bash asks alice, then runs sandboxed in her workspace: no other user's folder, no network", async () => {
    const id = await newSession(w1, 'alice', ['shell']);
    const asked = await streamEvents(await turn(w1, 'alice', id, 'alice shell'));
    // A raw command always asks an API session's user, whatever the server's approval mode.
    expect((asked.at(-1)!.requests as Array<{ tool: string }>)[0]!.tool).toBe('run_bash');
    const [ran] = results(await approveAll(w1, 'alice', id, asked));
    expect(ran).toMatchObject({ name: 'run_bash', ok: true });
    const [pwd, ...rest] = ran!.output.trim().split('\n');
    expect(pwd).toBe(join(root, 'alice'));
    // `ls -A ..`: the root holds only her own folder inside the sandbox; /proc/net/dev: only `lo` (1 interface).
    expect(rest).toEqual(['alice', '1']);
  });

  it('an idempotent resend runs no tool twice, and a client reattaches to the running turn on the other worker', async () => {
    const id = await newSession(w1, 'alice', []);
    const key = { 'Idempotency-Key': 'team-turn-0001' };
    const first = await turn(w1, 'alice', id, 'alice tallies', key);
    expect(first.status).toBe(200);
    const cut = await readThenCut(first, (e) => e.type === 'tool-start' && e.name === 'hold');
    expect(results(cut.events).map((r) => r.name)).toEqual(['tally']);
    // The client lost its stream: it resends to the other worker and reattaches there from its last event.
    const resent = await turn(w2, 'alice', id, 'alice tallies', key);
    expect(resent.status).toBe(200);
    const reattached = await fetch(`${w2.url}/v1/sessions/${id}/events`, {
      headers: { authorization: `Bearer ${tokens.alice}`, 'Last-Event-ID': String(cut.lastId) },
    });
    expect(reattached.status).toBe(200);
    await waitFor(() => existsSync(join(root, 'alice', 'holding')), 'the held tool');
    await writeFile(join(root, 'alice', 'release'), '');
    const replay = await streamEvents(resent);
    const rest = await streamEvents(reattached);
    expect(results(replay).map((r) => r.name)).toEqual(['tally', 'hold']);
    expect(replay.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    expect(results(rest).map((r) => r.name)).toEqual(['hold']);
    expect(rest.at(-1)).toEqual(replay.at(-1));
    expect(await readFile(join(root, 'alice', 'tally.txt'), 'utf8')).toBe('once\n');
  });

  it('both workers survive a PostgreSQL restart in the middle of a turn, and serve the next one once it is back', async () => {
    const id = await newSession(w1, 'alice', []);
    const running = turn(w1, 'alice', id, 'alice holds on');
    await waitFor(() => existsSync(join(root, 'alice', 'holding')), 'the held tool');
    await pg.crash();
    await writeFile(join(root, 'alice', 'release'), '');
    const events = await streamEvents(await running);
    // The turn ends with an error and its result; nothing crashed.
    expect(events.some((e) => e.type === 'error')).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'error' });
    for (const w of [w1, w2]) {
      expect(alive(w)).toBe(true);
      expect((await w.request('/v1/health')).status).toBe(200);
      expect((await w.request('/v1/ready')).status).toBe(503);
    }
    await pg.start();
    for (const w of [w1, w2])
      await waitFor(async () => (await w.request('/v1/ready')).status === 200, 'the worker to be ready');
    // The same session goes on, on the other worker; the step that finished before the restart is kept.
    // The session's lease, left by w1 while the database was down, is released by w1 once it is back (a client that
    // gets 409 session-busy meanwhile tries again, as the error says).
    let answer = await turn(w2, 'alice', id, 'alice is back');
    for (let i = 0; answer.status === 409 && i < 200; i++) {
      await pause(100);
      answer = await turn(w2, 'alice', id, 'alice is back');
    }
    expect(answer.status, await answer.clone().text()).toBe(200);
    const next = await streamEvents(answer);
    expect(next.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    expect(await readFile(join(root, 'alice', 'tally.txt'), 'utf8')).toBe('once\nkept\n');
    for (const w of [w0, w1, w2]) expect(alive(w)).toBe(true);
  });
});
