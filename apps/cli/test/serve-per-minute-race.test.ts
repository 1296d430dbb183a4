import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type PostgresServer, startPostgres } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { makeToken, startWorker, streamEvents, type Worker } from './helpers/serve.js';
import { STORE_SKILLS } from './helpers/sessions.js';

// `serve.limits.turns_per_minute` was counted in the run log before the turn started its run: turns of one user sent at
// the same moment all passed the count, and the user ran more turns in the minute than the limit. Here several turns of
// one user arrive at once on two workers over one PostgreSQL database (and on one worker over a SQLite file): only
// the limit's worth start, the rest are 429 `turns-per-minute-limit` with Retry-After.

type ErrorBody = { error: { code: string; message: string } };

let pg: PostgresServer;
let box: Sandbox;
const workers: Worker[] = [];

/** A worker with its own home and config (`turns_per_minute` 2), on the database `env` names (or its own SQLite file). */
async function start(name: string, env: NodeJS.ProcessEnv): Promise<Worker> {
  const home = join(box.dir.path, `home-${name}`);
  await mkdir(home, { recursive: true });
  await writeFile(
    join(home, 'config.json'),
    JSON.stringify({ settings: { serve: { limits: { turns_per_minute: 2 } } } }),
  );
  const script = join(box.dir.path, `${name}.json`);
  await writeFile(
    script,
    JSON.stringify({ replies: Array.from({ length: 8 }, () => ({ match: 'quick', text: 'Quick.' })) }),
  );
  const worker = await startWorker(['--skills-dir', STORE_SKILLS], {
    env: { ...env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
    cwd: box.cwd,
    home,
  });
  workers.push(worker);
  return worker;
}

const newSession = async (w: Worker, token: string) => {
  const response = await w.request('/v1/sessions', { token, json: {} });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
};

/** Sends one turn per (worker, session) at once; the answers, in the same order. */
async function atOnce(token: string, targets: Array<[Worker, string]>): Promise<Response[]> {
  return Promise.all(
    targets.map(([w, id]) => w.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'quick' } })),
  );
}

/** Exactly `limit` of the answers started their turn (which ran to its end); every other one is the minute's 429. */
async function expectOnly(limit: number, answers: Response[]): Promise<void> {
  const started = answers.filter((r) => r.status === 200);
  const refused = answers.filter((r) => r.status !== 200);
  expect(refused.map((r) => r.status)).toEqual(Array(answers.length - limit).fill(429));
  for (const r of refused) {
    const retryAfter = Number(r.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await r.json()) as ErrorBody;
    expect(body.error.code).toBe('turns-per-minute-limit');
    expect(body.error.message).toContain('turns per minute limit');
  }
  expect(started).toHaveLength(limit);
  for (const r of started)
    expect((await streamEvents(r)).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
}

beforeAll(async () => {
  pg = await startPostgres();
  box = await sandbox();
}, 120_000);

afterAll(async () => {
  for (const w of workers) w.process.kill('SIGKILL');
  await box?.cleanup();
  await pg?.stop();
});

describe('turns of one user sent at the same moment, turns_per_minute 2', { timeout: 120_000 }, () => {
  it('on two workers over one PostgreSQL database: two start, the other four are 429 with Retry-After', async () => {
    const env = { ...box.env, BIRDIE_DATABASE_URL: pg.url, BIRDIE_DATABASE_SCHEMA: `minute_${process.pid}` };
    const alice = await makeToken('alice', { env, cwd: box.cwd });
    const [w1, w2] = await Promise.all([start('pg1', env), start('pg2', env)]);
    const targets: Array<[Worker, string]> = [];
    for (const w of [w1!, w2!, w1!, w2!, w1!, w2!]) targets.push([w, await newSession(w, alice)]);
    await expectOnly(2, await atOnce(alice, targets));
  });

  it('on one worker over a SQLite file: two start, the other three are 429 with Retry-After', async () => {
    const w = await start('sqlite', box.env);
    // The worker's store is the SQLite file in its own home: the token is made there.
    const alice = await makeToken('alice', { env: { ...box.env, BIRDIE_HOME: w.home }, cwd: box.cwd });
    const targets: Array<[Worker, string]> = [];
    for (let i = 0; i < 5; i++) targets.push([w, await newSession(w, alice)]);
    await expectOnly(2, await atOnce(alice, targets));
  });
});
