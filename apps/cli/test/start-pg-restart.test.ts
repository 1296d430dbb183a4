import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CRASH_SAFE_SETTINGS, type PostgresServer, startPostgres } from '@birdie/test-utils';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBirdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Issue 27, defect 4, the sibling of `birdie serve`: the scheduler (`birdie start`) on PostgreSQL shares the store's
// pool, and a restart of the server while it was inside a transaction ended it the same way. It must log the failed
// firing, stay up, and run the next due times once PostgreSQL is back. Its own PostgreSQL server, crashed here.

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SCHEMA = 'start_restart';

let server: PostgresServer;
let box: Sandbox;

beforeAll(async () => {
  server = await startPostgres({ settings: CRASH_SAFE_SETTINGS });
  box = await sandbox({ BIRDIE_DATABASE_URL: server.url, BIRDIE_DATABASE_SCHEMA: SCHEMA });
}, 60_000);

afterAll(async () => {
  await box?.cleanup();
  await server?.stop();
});

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

describe('birdie start on PostgreSQL', { timeout: 180_000 }, () => {
  it('survives a restart of the server while a firing waits inside its transaction, and runs again once it is back', async () => {
    const agents = join(box.dir.path, 'agents');
    await mkdir(agents);
    await writeFile(
      join(agents, 'ticker.md'),
      '---\nname: ticker\ndescription: A test agent.\nevery: 1s\nprompt: Say tick.\n---\nYou are a test agent.\n',
    );
    const script = join(box.dir.path, 'script.json');
    await writeFile(
      script,
      JSON.stringify({ replies: Array.from({ length: 60 }, () => ({ text: 'tick' })) }),
    );
    const p = startBirdie(['start', '--agents-dir', agents], {
      env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
      cwd: box.cwd,
      timeoutMs: 170_000,
    });
    try {
      await p.waitFor('stderr', /end ticker ok/, 60_000);
      // Hold the trigger's lease lock: the next firing's acquire waits for it inside its transaction.
      const holder = await connect();
      await holder.query('SELECT pg_advisory_lock(hashtext($1))', [`birdie-lease:${SCHEMA}:trigger:ticker`]);
      const watcher = await connect();
      await until(
        async () =>
          (
            await watcher.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'",
            )
          ).rows[0]!.n > 0,
        'a firing to wait on the lock',
      );
      const before = p.stderr().length;
      await server.crash();
      await p.waitFor('stderr', /error ticker: cannot reach the database server/, 30_000);
      expect(p.child.exitCode).toBeNull();

      await server.start();
      // Runs again: an `end ticker ok` logged after the restart.
      await until(async () => /end ticker ok/.test(p.stderr().slice(before)), 'a run after the restart');
      p.kill('SIGTERM');
      const done = await p.exited;
      expect(done.code, done.stderr).toBe(0);
    } finally {
      p.kill('SIGKILL');
    }
  });
});
