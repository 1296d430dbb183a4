import { isStoreError } from '@birdie/store';
import { blackhole, freezableProxy, type SilentServer } from '@birdie/test-utils';
import { afterEach, expect, inject, it } from 'vitest';
import { openPostgresStore, type PostgresStore, postgresMigrationStatus } from '../src/index.js';

// Ops report, defect 3: a PostgreSQL server that stops answering (frozen, or a network that drops packets: no reset,
// no answer) hung readiness, every call and `birdie doctor` for as long as it stayed silent. Every wait is bounded and
// ends as `unavailable`, naming the bound. The bounds are short here; what is asserted is the outcome, not the time.

const SHORT = { connectTimeoutMs: 200, queryTimeoutMs: 300, readyTimeoutMs: 250 };
// Once connected through the proxy the real server must keep up with the bounds on a loaded 2-core machine, where a
// new connection and a statement can take seconds: bounds of several seconds, each test given minutes.
const FREEZING = { connectTimeoutMs: 10_000, queryTimeoutMs: 8_000, readyTimeoutMs: 5_000 };

let silent: SilentServer | undefined;
let store: PostgresStore | undefined;
let schemas = 0;
const schema = () => `silent${process.pid}_${++schemas}`;

afterEach(async () => {
  await store?.close().catch(() => undefined);
  store = undefined;
  await silent?.close();
  silent = undefined;
});

async function failure(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: Error & { code?: string }) => error,
  );
}

function serverDir(): string {
  // `postgresql://birdie@/postgres?host=SOCKET_DIR` (no host part: WHATWG URL refuses it).
  return decodeURIComponent(/[?&]host=([^&]+)/.exec(inject('postgresUrl'))![1]!);
}

it('opening a store on a server that accepts connections and never answers fails with unavailable', async () => {
  silent = await blackhole();
  const error = await failure(
    openPostgresStore({ url: silent.urlFor('postgres'), schema: schema(), ...SHORT }),
  );
  expect(isStoreError(error) && error.code).toBe('unavailable');
  expect(error.message).toContain('it did not answer within 0.2 s');
});

it('`birdie db status` on a silent server fails with unavailable', async () => {
  silent = await blackhole();
  const error = await failure(postgresMigrationStatus({ url: silent.urlFor('postgres'), ...SHORT }));
  expect(isStoreError(error) && error.code).toBe('unavailable');
  expect(error.message).toMatch(/^cannot reach the database server .*: it did not answer within 0\.2 s/);
});

it('a server that freezes once the store is open: ready() is not ready, calls fail with unavailable', async () => {
  const proxy = await freezableProxy(serverDir());
  silent = proxy;
  store = await openPostgresStore({ url: proxy.urlFor('postgres'), schema: schema(), ...FREEZING });
  const session = await store.sessions.create('alice');
  expect(await store.ready()).toEqual({ ready: true });

  proxy.freeze();
  const ready = await store.ready();
  expect(ready).toMatchObject({ ready: false, code: 'unavailable' });
  expect(ready.ready === false && ready.reason).toContain('it did not answer within 5 s');

  const read = await failure(store.sessions.get(session.id, 'alice'));
  expect(isStoreError(read) && read.code).toBe('unavailable');
  expect(read.message).toMatch(/it did not answer within (8|10) s/);
  // A write is a transaction: it fails the same way rather than waiting on a ROLLBACK the server never answers.
  const write = await failure(
    store.runs.start({ sessionId: session.id, userId: 'alice', model: 'scripted' }),
  );
  expect(isStoreError(write) && write.code).toBe('unavailable');
  const doctor = await failure(store.doctor());
  expect(isStoreError(doctor) && doctor.code).toBe('unavailable');
}, 180_000);

it('a connection whose statement timed out is not reused: the store works again once the server answers', async () => {
  // The server answers again as soon as new connections go through (the frozen ones stay frozen): only a pool that
  // dropped the silent connections recovers.
  const proxy = await freezableProxy(serverDir());
  silent = proxy;
  store = await openPostgresStore({
    url: proxy.urlFor('postgres'),
    schema: schema(),
    maxConnections: 1,
    ...FREEZING,
  });
  const session = await store.sessions.create('alice');
  proxy.freezeOpenConnections();
  const error = await failure(store.sessions.get(session.id, 'alice'));
  expect(isStoreError(error) && error.code).toBe('unavailable');
  expect((await store.sessions.get(session.id, 'alice'))?.id).toBe(session.id);
  // The same inside a transaction (a write).
  proxy.freezeOpenConnections();
  const write = await failure(
    store.runs.start({ sessionId: session.id, userId: 'alice', model: 'scripted' }),
  );
  expect(isStoreError(write) && write.code).toBe('unavailable');
  expect(await store.ready()).toEqual({ ready: true });
}, 180_000);
