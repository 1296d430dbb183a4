import { isStoreError } from '@birdie/store';
import { type PostgresServer, startPostgres } from '@birdie/test-utils';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { Db } from './db.js';

// The pool's clients across a server crash (issue 27, defect 4): a transaction whose client is checked out and idle
// between two statements when the connection dies. Its own server, since it is crashed.

let server: PostgresServer;
let db: Db;

beforeAll(async () => {
  server = await startPostgres();
  db = new Db({ url: server.url, max: 2 }, 'public', 'the test server');
}, 60_000);
afterEach(() => server.start());
afterAll(async () => {
  await db?.close();
  await server?.stop();
});

it('a transaction idle between statements when the server crashes fails with unavailable; the pool reconnects after', async () => {
  const inFlight = db.tx(async (client) => {
    await client.query('SELECT 1');
    const ended = new Promise((resolve) => client.once('end', resolve));
    await server.crash();
    // The connection is gone while nothing runs on it: only the next statement learns it.
    await ended;
    await client.query('SELECT 2');
  });
  const error = db.map(
    await inFlight.then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  expect(isStoreError(error) && error.code).toBe('unavailable');
  expect((error as Error).message).toMatch(/^cannot reach the database server the test server: /);

  await server.start();
  const { rows } = await db.tx((client) => client.query<{ n: number }>('SELECT 41 + 1 AS n'));
  expect(rows[0]!.n).toBe(42);
});
