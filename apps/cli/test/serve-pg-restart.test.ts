import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CRASH_SAFE_SETTINGS, type PostgresServer, startPostgres } from '@birdie/test-utils';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';
import { makeToken, startWorker, streamEvents, type Worker } from './helpers/serve.js';
import { STORE_SKILLS } from './helpers/sessions.js';

// Issue 27, defect 4: `pg_ctl stop -m immediate` while a turn runs killed the `birdie serve` worker (an unhandled
// 'error' event of the `pg` client whose transaction was in flight). The worker must stay up, end that turn with a
// clear error keeping its completed steps, and serve the next turn once PostgreSQL is back. This file crashes its
// own PostgreSQL server, so it shares it with no other test.

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SCHEMA = 'restart';

let server: PostgresServer;
let box: Sandbox;
/** The users' workspaces (`--workspaces`): the tools run there, sandboxed, so the test's files live there too. */
let root: string;
let worker: Worker;
let alice: string;
const files = { started: '', release: '', effects: '' };

beforeAll(async () => {
  server = await startPostgres({ settings: CRASH_SAFE_SETTINGS });
  box = await sandbox({ BIRDIE_DATABASE_URL: server.url, BIRDIE_DATABASE_SCHEMA: SCHEMA });
  root = join(box.dir.path, 'workspaces');
  files.started = join(root, 'alice', 'started.txt');
  files.release = join(root, 'alice', 'release');
  files.effects = join(root, 'alice', 'effects.txt');
  const script = join(box.dir.path, 'model.json');
  await writeFile(
    script,
    JSON.stringify({
      replies: [
        // A step that completes, then one whose result is being saved when the server goes away.
        {
          match: 'restart mid-turn',
          tool_calls: [{ name: 'append_token', args: { delay: '0', token: 'kept', file: 'effects.txt' } }],
        },
        {
          match: 'restart mid-turn',
          tool_calls: [
            {
              name: 'gated_step',
              args: { token: 'restart', started: 'started.txt', release: 'release' },
            },
          ],
        },
        { match: 'after the restart', text: 'Back again.' },
      ],
    }),
  );
  alice = await makeToken('alice', { env: box.env, cwd: box.cwd });
  worker = await startWorker(
    ['--skills-dir', TEST_SKILLS, '--skills-dir', STORE_SKILLS, '--workspaces', root],
    {
      env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
      cwd: box.cwd,
      home: join(box.dir.path, 'home-worker'),
    },
  );
}, 120_000);

afterAll(async () => {
  await writeFile(files.release, '').catch(() => {});
  worker?.process.kill('SIGKILL');
  await box?.cleanup();
  await server?.stop();
});

/** A connection of the test's own, that survives the server going away without crashing the test. */
async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: server.url });
  client.on('error', () => {});
  await client.connect();
  return client;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check().catch(() => false)) return;
    await pause(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const turn = (id: string, prompt: string) =>
  worker.request(`/v1/sessions/${id}/turns`, { token: alice, json: { prompt } });

describe('a PostgreSQL restart while a turn runs', { timeout: 180_000 }, () => {
  it('fails only that turn (error, completed steps kept); the worker stays up and serves the next turn once PostgreSQL is back', async () => {
    const created = await worker.request('/v1/sessions', { token: alice, json: {} });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };

    const running = turn(id, 'restart mid-turn');
    await until(
      async () => (await readFile(files.started, 'utf8')).includes('restart'),
      'the second tool to run',
    );
    // Hold the session's lease row: the worker's next write (the tool's result, fenced by the lease inside its
    // transaction) waits for it, so a transaction is in flight on a checked-out client when the server goes away.
    const locker = await connect();
    await locker.query('BEGIN');
    await locker.query(`SELECT 1 FROM ${SCHEMA}.leases WHERE session_id = $1 FOR UPDATE`, [id]);
    await writeFile(files.release, '');
    // Watched from another connection: within the locker's transaction, pg_stat_activity is a snapshot.
    const watcher = await connect();
    await until(
      async () =>
        (
          await watcher.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query LIKE '%FROM leases WHERE session_id = $1 FOR SHARE'`,
          )
        ).rows[0]!.n > 0,
      'the worker to wait inside its transaction',
    );

    await server.crash();
    const events = await streamEvents(await running);
    // The turn ends with a clear error naming the database, and its result.
    const error = events.find((e) => e.type === 'error') as
      | { error: { code?: string; message: string } }
      | undefined;
    expect(error?.error.message).toMatch(/cannot reach the database server/);
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'error', session: id });
    // The worker is up and says the store is down; requests that need the store are 503, not a dropped connection.
    expect(worker.process.child.exitCode).toBeNull();
    expect((await worker.request('/v1/health')).status).toBe(200);
    const notReady = await worker.request('/v1/ready');
    expect(notReady.status).toBe(503);
    expect(((await notReady.json()) as { reason: { code: string } }).reason.code).toBe('unavailable');
    const refused = await worker.request(`/v1/sessions/${id}`, { token: alice });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unavailable');

    await server.start();
    // Back: the same worker serves the next turn of the same session (its lease left behind is its own).
    await until(async () => (await worker.request('/v1/ready')).status === 200, 'the worker to be ready');
    const next = await streamEvents(await turn(id, 'after the restart'));
    expect(next.at(-1)).toMatchObject({ type: 'result', status: 'ok' });

    const { messages } = (await (await worker.request(`/v1/sessions/${id}`, { token: alice })).json()) as {
      messages: Array<{
        role: string;
        content: string;
        tool_call_id?: string;
        tool_calls?: Array<{ id: string }>;
      }>;
    };
    // The step that completed before the restart is kept (its call and its result), and the conversation goes on.
    const [kept] = messages.filter((m) => m.tool_calls?.length).map((m) => m.tool_calls![0]!);
    expect(messages[0]?.content).toBe('restart mid-turn');
    expect(messages.find((m) => m.role === 'tool' && m.tool_call_id === kept?.id)?.content).toBe(
      'appended kept\n',
    );
    expect(messages.at(-1)).toMatchObject({ role: 'ai', content: 'Back again.' });
    expect(await readFile(files.effects, 'utf8')).toBe('kept\n');
    // The run log does not leave the cut-off turn `running`: its end could not be recorded, so it died.
    const { runs } = (await (await worker.request(`/v1/runs?session=${id}`, { token: alice })).json()) as {
      runs: Array<{ status: string; error?: string; toolCalls: Array<{ name: string; status: string }> }>;
    };
    expect(runs.map((r) => r.status)).toEqual(['ok', 'died']);
    expect(runs[1]!.error).toMatch(/could not be reached, so its end was not recorded/);
    expect(runs[1]!.toolCalls.map((c) => [c.name, c.status])).toEqual([
      ['append_token', 'ok'],
      ['gated_step', 'ok'],
    ]);
    expect(worker.process.child.exitCode).toBeNull();
  });
});
