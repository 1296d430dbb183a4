import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox, scripted } from './helpers/env.js';
import { makeToken, startWorker, streamEvents, type Worker } from './helpers/serve.js';
import { STORE_SKILLS, sessionIdOf } from './helpers/sessions.js';

// Issue 30, defect 11 (second half): on a shared server each user's sessions are numbered among their own, as the
// seed numbered them; the id carries the user (`bob~YYYY-MM-DD_1`), so it stays one key for its thread, its rows
// and its URL. One real `birdie serve` over its SQLite file, two users' tokens.

let box: Sandbox;
let worker: Worker;
let alice: string;
let bob: string;

beforeAll(async () => {
  box = await sandbox();
  alice = await makeToken('alice', { env: box.env, cwd: box.cwd });
  bob = await makeToken('bob', { env: box.env, cwd: box.cwd });
  worker = await startWorker(['--skills-dir', STORE_SKILLS], {
    env: { ...box.env, ...scripted('demo.json') },
    cwd: box.cwd,
    home: box.home,
  });
}, 120_000);

afterAll(async () => {
  worker?.process.kill('SIGKILL');
  await box?.cleanup();
});

const create = async (token: string) => {
  const response = await worker.request('/v1/sessions', { token, json: {} });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
};
const listOf = async (token: string) => {
  const response = await worker.request('/v1/sessions', { token });
  expect(response.status).toBe(200);
  return ((await response.json()) as { sessions: { id: string }[] }).sessions.map((s) => s.id);
};

describe('session numbers per user on a shared server', { timeout: 120_000 }, () => {
  let first: string;
  let day: string;

  it("a user's sessions count from 1 among their own, after another user's", async () => {
    const alices = [await create(alice), await create(alice), await create(alice)];
    const bobs = await create(bob);
    // The report: bob's first session of the day was number 4, counting alice's three.
    expect(bobs).toMatch(/_1$/);
    first = alices[0]!;
    day = /(\d{4}-\d{2}-\d{2})_1$/.exec(first)![1]!;
    expect(alices).toEqual([1, 2, 3].map((n) => `alice~${day}_${n}`));
    expect(bobs).toBe(`bob~${day}_1`);
  });

  it("one user cannot reach another's session of the same number", async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await worker.request(`/v1/sessions/${first}`, { method, token: bob });
      expect(response.status, method).toBe(404);
    }
    // The bare form of the number is nobody's session here.
    expect((await worker.request(`/v1/sessions/${day}_1`, { token: bob })).status).toBe(404);
    const own = await worker.request(`/v1/sessions/bob~${day}_1`, { token: bob });
    expect(own.status, worker.process.stderr()).toBe(200);
    expect(await own.json()).toMatchObject({ id: `bob~${day}_1` });
    // A turn runs on it (its thread, lease, run log and files are keyed by this id), and only bob's history has it.
    const turn = await worker.request(`/v1/sessions/bob~${day}_1/turns`, {
      token: bob,
      json: { prompt: 'hello' },
    });
    expect(turn.status).toBe(200);
    expect((await streamEvents(turn)).at(-1)).toMatchObject({
      type: 'result',
      status: 'ok',
      session: `bob~${day}_1`,
    });
    const history = async (id: string, token: string) =>
      ((await (await worker.request(`/v1/sessions/${id}`, { token })).json()) as { messages: unknown[] })
        .messages;
    expect((await history(`bob~${day}_1`, bob)).length).toBeGreaterThan(0);
    expect(await history(first, alice)).toEqual([]);
    expect(await listOf(bob)).toEqual([`bob~${day}_1`]);
    expect((await listOf(alice)).sort()).toEqual([1, 2, 3].map((n) => `alice~${day}_${n}`));
  });

  it('concurrent creates by one user never share a number', async () => {
    const ids = await Promise.all(Array.from({ length: 6 }, () => create(bob)));
    expect([...ids].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))).toEqual(
      [2, 3, 4, 5, 6, 7].map((n) => `bob~${day}_${n}`),
    );
  });

  it("the local CLI over the same store keeps plain ids, lists a user's API sessions and names another's owner", async () => {
    const run = await birdie(['run', '--json', '--user', 'alice', 'hello'], {
      env: { ...box.env, ...scripted('demo.json') },
      cwd: box.cwd,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(sessionIdOf(run.stdout)).toBe(`${day}_1`);
    const listed = await birdie(['sessions', 'list', '--user', 'bob'], { env: box.env, cwd: box.cwd });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`bob~${day}_1`);
    const shown = await birdie(['sessions', 'show', `bob~${day}_1`, '--user', 'bob'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`session bob~${day}_1 · user bob · 1 turn`);
    const wrong = await birdie(['sessions', 'show', first, '--user', 'bob'], { env: box.env, cwd: box.cwd });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('--user alice');
  });
});
