import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Child,
  CRASH_SAFE_SETTINGS,
  type PostgresServer,
  spawnModule,
  startPostgres,
} from '@birdie/test-utils';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// Issue 27, defect 4: a PostgreSQL restart (`pg_ctl stop -m immediate`, then start) while a worker is inside a
// transaction killed the worker with an unhandled 'error' event of the `pg` client. A worker is a process: this file
// runs the built store in a child and restarts its own server (the run's shared server is left alone).

const PG_DIST = new URL('../dist/index.js', import.meta.url).href;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: PostgresServer;
let dir: string;
let admin: pg.Pool;

beforeAll(async () => {
  server = await startPostgres({ settings: CRASH_SAFE_SETTINGS });
  dir = mkdtempSync(join(tmpdir(), 'birdie-pg-restart-'));
  admin = new pg.Pool({ connectionString: server.url, max: 2 });
  // The test's own connections die with the server too.
  admin.on('error', () => {});
}, 60_000);

// A test that failed while the server was down leaves it up for the next.
afterEach(() => server.start());

afterAll(async () => {
  await admin?.end();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A worker: the built store in a child process, doing what it is told on stdin (`<label> <command>`) and printing
 * `<label> ok` or `<label> <code> <message>` for each.
 */
function worker(schema: string): Child {
  return spawnModule(
    dir,
    `import { createInterface } from 'node:readline';
const { openPostgresStore } = await import(${JSON.stringify(PG_DIST)});
const store = await openPostgresStore({ url: ${JSON.stringify(server.url)}, schema: ${JSON.stringify(schema)}, maxConnections: 3 });
const session = await store.sessions.create('alice');
console.log('session ' + session.id);
let lease;
const commands = {
  acquire: async () => { lease = await store.leases.acquire(session.id, { ttlMs: 1500 }); },
  held: () => lease.assertHeld(),
  write: () => store.runs.start({ sessionId: session.id, userId: 'alice', model: 'scripted' }),
  release: () => lease.release(),
  ready: async () => {
    const found = await store.ready();
    if (!found.ready) throw Object.assign(new Error(found.reason), { code: found.code });
  },
};
for await (const line of createInterface({ input: process.stdin })) {
  const [label, command] = line.split(' ');
  commands[command]().then(
    () => console.log(label + ' ok'),
    (error) => console.log(label + ' ' + (error.code ?? 'no-code') + ' ' + error.message),
  );
}`,
  );
}

/** Sends a command and waits for its answer (rejects, with the child's stderr, if the child exits first). */
let labels = 0;
async function ask(child: Child, command: string): Promise<string> {
  const label = `#${++labels}`;
  child.send(`${label} ${command}`);
  const line = await child.waitFor((l) => l.startsWith(`${label} `));
  return line.slice(label.length + 1);
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check().catch(() => false)) return;
    await pause(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('a PostgreSQL restart under a worker', { timeout: 120_000 }, () => {
  it('fails only the statement in flight inside a transaction (unavailable); the worker stays up and goes on once the server is back', async () => {
    const schema = 'restart_tx';
    const child = worker(schema);
    try {
      const id = (await child.waitFor((l) => l.startsWith('session '))).slice('session '.length);
      // Another connection holds the session's lease lock: the worker's acquire waits for it inside its transaction,
      // on a client checked out of the pool (the case that had no 'error' listener).
      const holder = new pg.Client({ connectionString: server.url });
      holder.on('error', () => {});
      await holder.connect();
      await holder.query('SELECT pg_advisory_lock(hashtext($1))', [`birdie-lease:${schema}:${id}`]);
      const acquiring = ask(child, 'acquire');
      await until(
        async () =>
          (
            await admin.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'",
            )
          ).rows[0]!.n === 1,
        'the acquire to wait on the lock',
      );

      await server.crash();
      expect(await acquiring).toMatch(/^unavailable cannot reach the database server postgresql:\/\/birdie@/);
      // Down: the next call is refused the same way, and the process is still there to say so.
      expect(await ask(child, 'write')).toMatch(/^unavailable cannot reach the database server/);
      expect(await ask(child, 'ready')).toMatch(/^unavailable cannot reach the database server/);

      await server.start();
      // Back: the same worker takes the lease and writes, over new connections.
      await until(async () => (await ask(child, 'acquire')) === 'ok', 'the worker to take the lease');
      expect(await ask(child, 'ready')).toBe('ok');
      expect(await ask(child, 'write')).toBe('ok');
      expect(await ask(child, 'release')).toBe('ok');
      expect(child.child.exitCode).toBeNull();
    } finally {
      child.child.kill('SIGKILL');
    }
  });

  it('a lease held across the restart is renewed again once the server is back, and stays held', async () => {
    const schema = 'restart_lease';
    const child = worker(schema);
    try {
      const id = (await child.waitFor((l) => l.startsWith('session '))).slice('session '.length);
      expect(await ask(child, 'acquire')).toBe('ok');
      const expiry = async () =>
        (
          await admin.query<{ expires_at: string }>(
            `SELECT expires_at FROM ${schema}.leases WHERE session_id = $1`,
            [id],
          )
        ).rows[0]?.expires_at;
      await server.crash();
      // Heartbeats fail while it is down (every 500 ms here); the process stays up.
      expect(await ask(child, 'write')).toMatch(/^unavailable /);
      await server.start();
      const before = Number(await expiry());
      await until(async () => Number(await expiry()) > before, 'a heartbeat after the restart');
      expect(await ask(child, 'held')).toBe('ok');
      expect(await ask(child, 'write')).toBe('ok');
      expect(child.child.exitCode).toBeNull();
    } finally {
      child.child.kill('SIGKILL');
    }
  });

  it('a lease released while the server is down is released once it is back, and the run it left running dies', async () => {
    const schema = 'restart_release';
    const child = worker(schema);
    try {
      const id = (await child.waitFor((l) => l.startsWith('session '))).slice('session '.length);
      expect(await ask(child, 'acquire')).toBe('ok');
      expect(await ask(child, 'write')).toBe('ok');
      await server.crash();
      // The turn's end cannot be recorded, nor the lease given back; releasing never fails its caller.
      expect(await ask(child, 'release')).toBe('ok');
      await server.start();
      const state = async () => {
        const lease = await admin.query(`SELECT owner FROM ${schema}.leases WHERE session_id = $1`, [id]);
        const runs = await admin.query<{ status: string; error: string | null }>(
          `SELECT status, error FROM ${schema}.runs WHERE session_id = $1`,
          [id],
        );
        return { leases: lease.rowCount, runs: runs.rows };
      };
      await until(async () => (await state()).leases === 0, 'the release to reach the server');
      expect((await state()).runs).toEqual([
        {
          status: 'died',
          error:
            'died: the turn ended while the database server could not be reached, so its end was not recorded',
        },
      ]);
      expect(child.child.exitCode).toBeNull();
    } finally {
      child.child.kill('SIGKILL');
    }
  });
});
