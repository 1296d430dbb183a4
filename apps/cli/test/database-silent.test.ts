import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Ops report, defect 3: a PostgreSQL server that stops answering (frozen, or a network that drops packets: no reset,
// no answer) kept `birdie doctor` waiting for as long as it stayed silent. A unix socket named as PostgreSQL's that
// accepts connections and never answers stands in for it; the bound is set short through the environment.
// Defect 6: `db status --json` / `db migrate --json` printed nothing when the store failed; a `pg_` schema name
// passed the check and then failed without a reason.

let box: Sandbox;
let server: Server;
let dir: string;
const sockets = new Set<Socket>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'birdie-blackhole-'));
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(join(dir, '.s.PGSQL.5432'), resolve));
  box = await sandbox({
    BIRDIE_DATABASE_URL: `postgresql://birdie@/birdie?host=${encodeURIComponent(dir)}`,
    BIRDIE_DATABASE_CONNECT_TIMEOUT_MS: '200',
  });
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
  await box?.cleanup();
});

const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  birdie(args, { env: { ...box.env, ...env }, cwd: box.cwd });

describe('a database server that accepts connections and never answers', () => {
  it('birdie doctor says it cannot reach it and how long it waited, exit 1', async () => {
    const doctor = await run(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stderr).toContain('cannot reach the database server');
    expect(doctor.stderr).toContain('did not answer within 0.2 s');
    const json = await run(['doctor', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false });
  });

  it.each([['status'], ['migrate']])(
    'birdie db %s --json prints the failure as JSON, exit 1',
    async (command) => {
      const result = await run(['db', command, '--json']);
      expect(result.code).toBe(1);
      const report = JSON.parse(result.stdout);
      expect(report).toMatchObject({ ok: false, error: { code: 'unavailable' } });
      expect(report.error.message).toContain('did not answer within 0.2 s');
      expect(report.error.hint).toContain('BIRDIE_DATABASE_URL');
      // The sentence a person reads is still on stderr.
      expect(result.stderr).toContain('cannot reach the database server');
    },
  );

  it('a bad timeout value is a usage error', async () => {
    const result = await run(['db', 'status'], { BIRDIE_DATABASE_QUERY_TIMEOUT_MS: '2s' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'BIRDIE_DATABASE_QUERY_TIMEOUT_MS must be a whole number of milliseconds',
    );
  });
});

describe('a schema name PostgreSQL reserves', () => {
  it.each([['pg_birdie'], ['pg_catalog']])(
    'BIRDIE_DATABASE_SCHEMA=%s is refused up front, naming the prefix',
    async (schema) => {
      for (const args of [
        ['db', 'migrate'],
        ['db', 'status', '--json'],
        ['sessions', 'list'],
      ]) {
        const result = await run(args, { BIRDIE_DATABASE_SCHEMA: schema });
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(
          `BIRDIE_DATABASE_SCHEMA must not start with pg_ (PostgreSQL reserves that prefix for its own schemas), got "${schema}"`,
        );
      }
    },
  );
});
