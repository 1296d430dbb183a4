import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type PostgresServer, startPostgres } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { makeToken, startWorker, streamEvents, type Worker } from './helpers/serve.js';
import { STORE_SKILLS } from './helpers/sessions.js';

// Issue 27, roles: admin tokens and per-user turn limits on two `birdie serve` workers over one PostgreSQL database.
// The limits are settings of each worker's config (serve.limits.*) and are counted in the shared database.

let pg: PostgresServer;
let box: Sandbox;
/** The users' workspaces (`--workspaces`): the tools run there, sandboxed, so the test's files live there too. */
let root: string;
let env: NodeJS.ProcessEnv;
let w1: Worker;
let w2: Worker;
let alice: string;
let bob: string;
const files = { started: '', release: '' };

type ErrorBody = { error: { code: string; message: string } };

beforeAll(async () => {
  pg = await startPostgres();
  box = await sandbox({ BIRDIE_DATABASE_URL: pg.url, BIRDIE_DATABASE_SCHEMA: `roles_${process.pid}` });
  env = box.env;
  root = join(box.dir.path, 'workspaces');
  files.started = join(root, 'bob', 'started.txt');
  files.release = join(root, 'bob', 'release');
  const gated = {
    name: 'gated_step',
    args: { token: 'held', started: 'started.txt', release: 'release' },
  };
  const replies = [
    { match: 'hold on', tool_calls: [gated] },
    { match: 'hold on', text: 'Held.' },
    { match: 'quick', text: 'Quick.' },
  ];
  const start = async (name: string) => {
    const home = join(box.dir.path, `home-${name}`);
    await mkdir(home, { recursive: true });
    // Each worker's own config (like two machines), with the same limits.
    await writeFile(
      join(home, 'config.json'),
      JSON.stringify({ settings: { serve: { limits: { concurrent_turns: 1, turns_per_minute: 2 } } } }),
    );
    const script = join(box.dir.path, `${name}.json`);
    await writeFile(script, JSON.stringify({ replies: [...replies, ...replies] }));
    return startWorker(['--skills-dir', STORE_SKILLS, '--workspaces', root], {
      env: { ...env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
      cwd: box.cwd,
      home,
    });
  };
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

const newSession = async (w: Worker, token: string) => {
  const response = await w.request('/v1/sessions', { token, json: {} });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
};
const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 600; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

describe('admin tokens', { timeout: 120_000 }, () => {
  it('tokens create --admin makes an admin token; tokens list has a header and a ROLE column', async () => {
    const made = await birdie(['tokens', 'create', '--user', 'ops', '--admin', '--json'], {
      env,
      cwd: box.cwd,
    });
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ userId: 'ops', admin: true });
    const plain = await birdie(['tokens', 'create', '--user', 'ops2', '--admin'], { env, cwd: box.cwd });
    expect(plain.stderr).toContain('admin token tok_');

    const listed = await birdie(['tokens', 'list'], { env, cwd: box.cwd });
    expect(listed.code, listed.stderr).toBe(0);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['ID', 'USER', 'ROLE', 'NAME', 'CREATED', 'LAST USED']);
    const roles = Object.fromEntries(rows.map((r) => r.split(/\s{2,}/)).map((cells) => [cells[1], cells[2]]));
    expect(roles).toMatchObject({ alice: 'user', bob: 'user', ops: 'admin' });
    expect(listed.stdout).not.toContain(alice);
  });

  it('through the API, on any worker: the admin lists and revokes tokens and reads any user’s runs; bob may not', async () => {
    const ops = JSON.parse(
      (await birdie(['tokens', 'create', '--user', 'ops', '--admin', '--json'], { env, cwd: box.cwd }))
        .stdout,
    ).token as string;
    const carol = JSON.parse(
      (await birdie(['tokens', 'create', '--user', 'carol', '--json'], { env, cwd: box.cwd })).stdout,
    ) as { id: string; token: string };

    const listed = await w2.request('/v1/tokens', { token: ops });
    expect(listed.status).toBe(200);
    const text = await listed.text();
    expect(text).not.toContain(carol.token);
    const { tokens } = JSON.parse(text) as { tokens: Array<{ id: string; userId: string; role: string }> };
    expect(tokens.find((t) => t.id === carol.id)).toMatchObject({ userId: 'carol', role: 'user' });

    for (const [method, path] of [
      ['GET', '/v1/tokens'],
      ['DELETE', `/v1/tokens/${carol.id}`],
      ['GET', '/v1/runs?user=alice'],
    ] as const) {
      const refused = await w1.request(path, { method, token: bob });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(((await refused.json()) as ErrorBody).error.code).toBe('forbidden');
    }
    expect((await w2.request('/v1/sessions', { token: carol.token })).status).toBe(200);

    // A turn of alice's, then the admin reads it from the other worker.
    const id = await newSession(w1, alice);
    const turn = await w1.request(`/v1/sessions/${id}/turns`, { token: alice, json: { prompt: 'quick' } });
    expect((await streamEvents(turn)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    const runs = (await (await w2.request('/v1/runs?user=alice', { token: ops })).json()) as {
      runs: Array<{ userId: string; sessionId: string }>;
    };
    expect(runs.runs.map((r) => [r.userId, r.sessionId])).toContainEqual(['alice', id]);

    expect((await w1.request(`/v1/tokens/${carol.id}`, { method: 'DELETE', token: ops })).status).toBe(204);
    expect((await w2.request('/v1/sessions', { token: carol.token })).status).toBe(401);
  });
});

describe('per-user turn limits across workers', { timeout: 120_000 }, () => {
  it('a second concurrent turn is 429 on the other worker; a turn over the minute’s budget is 429 with Retry-After', async () => {
    // Bob's own budget: nothing of alice's counts for him.
    const [first, second] = [await newSession(w1, bob), await newSession(w2, bob)];
    const held = await w1.request(`/v1/sessions/${first}/turns`, { token: bob, json: { prompt: 'hold on' } });
    expect(held.status).toBe(200);
    await until(() => existsSync(files.started), 'the gated step');
    expect(await readFile(files.started, 'utf8')).toContain('held');

    const concurrent = await w2.request(`/v1/sessions/${second}/turns`, {
      token: bob,
      json: { prompt: 'quick' },
    });
    expect(concurrent.status).toBe(429);
    expect(((await concurrent.json()) as ErrorBody).error.code).toBe('concurrent-turns-limit');
    // Alice is not held back by bob's turn.
    const alices = await w2.request(`/v1/sessions/${await newSession(w2, alice)}/turns`, {
      token: alice,
      json: { prompt: 'quick' },
    });
    expect(alices.status).toBe(200);
    await streamEvents(alices);

    await writeFile(files.release, '');
    expect((await streamEvents(held)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    const next = await w2.request(`/v1/sessions/${second}/turns`, { token: bob, json: { prompt: 'quick' } });
    expect(next.status).toBe(200);
    await streamEvents(next);

    // Two turns of bob's in this minute: the third, on either worker, waits.
    const third = await w1.request(`/v1/sessions/${second}/turns`, { token: bob, json: { prompt: 'quick' } });
    expect(third.status).toBe(429);
    const retryAfter = Number(third.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(((await third.json()) as ErrorBody).error.code).toBe('turns-per-minute-limit');
  });

  it('the limits are settings: set, got and unset by config, validated', async () => {
    const home = join(box.dir.path, 'home-config');
    await mkdir(home, { recursive: true });
    const cfg = { ...env, BIRDIE_HOME: home };
    const set = await birdie(['config', 'set', 'serve.limits.concurrent_turns', '3'], {
      env: cfg,
      cwd: box.cwd,
    });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(home, 'config.json'), 'utf8'))).toEqual({
      settings: { serve: { limits: { concurrent_turns: 3 } } },
    });
    const got = await birdie(['config', 'get', 'serve.limits.concurrent_turns'], { env: cfg, cwd: box.cwd });
    expect(got.stdout.trim()).toBe('3');
    const bad = await birdie(['config', 'set', 'serve.limits.turns_per_minute', '0'], {
      env: cfg,
      cwd: box.cwd,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('settings.serve.limits.turns_per_minute must be at least 1');
    // A minute's places are kept in the store, which counts at most 100,000 a minute: a larger setting would be
    // accepted here and then refuse every turn, so it is refused here (unset means no limit).
    const huge = await birdie(['config', 'set', 'serve.limits.turns_per_minute', '1000000'], {
      env: cfg,
      cwd: box.cwd,
    });
    expect(huge.code, huge.stdout).toBe(2);
    expect(huge.stderr).toContain('settings.serve.limits.turns_per_minute must be at most 100000');
    const unset = await birdie(['config', 'unset', 'serve.limits.concurrent_turns'], {
      env: cfg,
      cwd: box.cwd,
    });
    expect(unset.code, unset.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(home, 'config.json'), 'utf8'))).toEqual({});
    await writeFile(
      join(home, 'config.json'),
      JSON.stringify({ settings: { serve: { limits: { turns_per_hour: 3 } } } }),
    );
    const unknown = await birdie(['config', 'list'], { env: cfg, cwd: box.cwd });
    expect(unknown.stderr).toContain(
      'unknown setting "settings.serve.limits.turns_per_hour" (allowed: concurrent_turns, turns_per_minute, mcp_sessions, mcp_sessions_per_user, mcp_idle_seconds, workspace_bytes)',
    );
  });
});
