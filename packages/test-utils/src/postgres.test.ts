import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresUnavailableError, startPostgres } from './index.js';

// The helper every PostgreSQL test starts its server with (issue 17): its own folder, a unix socket only, the
// unprivileged `postgres` user when run as root, stopped and removed at the end, and a failure (never a skip) with
// the reason when the server cannot start.

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// A TMPDIR of this test only, so that what the helper leaves behind (or not) is seen without other runs' folders.
let parent: string;
let savedTmp: string | undefined;
beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), 'birdie-pg-helper-'));
  chmodSync(parent, 0o755); // the postgres user must reach its folder inside
  savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = parent;
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(parent, { recursive: true, force: true });
});

describe('startPostgres', { timeout: 60_000 }, () => {
  it('starts a server on a unix socket in a temporary folder and removes it all on stop (twice is safe)', async () => {
    const server = await startPostgres();
    expect(server.dir.startsWith(parent)).toBe(true);
    expect(server.url).toBe(`postgresql://birdie@/postgres?host=${encodeURIComponent(server.dir)}`);
    expect(server.urlFor('other')).toContain('/other?host=');
    // Listening on the socket in its folder, and on no TCP port.
    expect(existsSync(join(server.dir, '.s.PGSQL.5432'))).toBe(true);
    const pidFile = readFileSync(join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(pidFile[0]);
    expect(alive(pid)).toBe(true);
    expect(pidFile[4]).toBe(server.dir); // socket directory
    expect(pidFile[5]).toBe(''); // listen address: none
    // initdb refuses root: as root, the data belongs to the postgres user.
    if (process.getuid?.() === 0) expect(statSync(join(server.dir, 'data')).uid).not.toBe(0);

    await server.stop();
    expect(existsSync(server.dir)).toBe(false);
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
    await server.stop();
  });

  it('crash cuts the server off at once and keeps its data; start brings it back on the same socket', async () => {
    const server = await startPostgres();
    const socket = join(server.dir, '.s.PGSQL.5432');
    const pidOf = () =>
      Number(readFileSync(join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const first = pidOf();
    await server.crash();
    for (let i = 0; i < 50 && alive(first); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(first)).toBe(false);
    expect(existsSync(socket)).toBe(false);
    expect(existsSync(join(server.dir, 'data', 'PG_VERSION'))).toBe(true);
    await server.crash(); // twice is safe
    await server.start();
    expect(existsSync(socket)).toBe(true);
    expect(alive(pidOf())).toBe(true);
    expect(pidOf()).not.toBe(first);
    await server.stop();
    expect(existsSync(server.dir)).toBe(false);
  });

  it('fails with PostgresUnavailableError and the server log when the server cannot start, leaving nothing behind', async () => {
    const error = await startPostgres({ settings: { max_connections: 'many' } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PostgresUnavailableError);
    expect((error as Error).message).toMatch(/^could not start a test PostgreSQL server with \S+initdb/);
    expect((error as Error).message).toContain('max_connections');
    expect((error as Error).cause).toBeDefined();
    expect(readdirSync(parent)).toEqual([]);
  });
});
