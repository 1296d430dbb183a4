import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FreezableProxy, freezableProxy, type PostgresServer, startPostgres } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { makeToken, startWorker, streamEvents, type Worker } from './helpers/serve.js';

// Ops report, defect 3: a PostgreSQL server that stops answering (frozen, or a network that drops packets: no reset,
// no answer) hung `/v1/ready`, every request, a running turn and `birdie doctor` for as long as it stayed silent.
// The worker reaches the server through a proxy that stops forwarding (its own PostgreSQL keeps running); the bounds
// are set short through the environment, and what is asserted is the answer, not the time it took.

let server: PostgresServer;
let proxy: FreezableProxy;
let box: Sandbox;
let worker: Worker;
let alice: string;

beforeAll(async () => {
  server = await startPostgres();
  proxy = await freezableProxy(server.dir);
  box = await sandbox({
    BIRDIE_DATABASE_URL: proxy.urlFor('postgres'),
    BIRDIE_DATABASE_SCHEMA: 'frozen',
    BIRDIE_DATABASE_CONNECT_TIMEOUT_MS: '3000',
    BIRDIE_DATABASE_QUERY_TIMEOUT_MS: '2000',
  });
  const script = join(box.dir.path, 'model.json');
  // A slow answer: the turn is still streaming when the server goes silent.
  await writeFile(
    script,
    JSON.stringify({
      replies: [{ match: 'slow', text: Array(60).fill('slow').join(' '), token_delay_ms: 100 }],
    }),
  );
  alice = await makeToken('alice', { env: box.env, cwd: box.cwd });
  worker = await startWorker([], {
    env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
    cwd: box.cwd,
    home: join(box.dir.path, 'home-worker'),
  });
}, 120_000);

afterAll(async () => {
  worker?.process.kill('SIGKILL');
  await proxy?.close();
  await box?.cleanup();
  await server?.stop();
});

describe('a PostgreSQL server that stops answering', { timeout: 120_000 }, () => {
  it('readiness and requests answer 503 unavailable, the running turn ends with an error, doctor says why', async () => {
    expect((await worker.request('/v1/ready')).status).toBe(200);
    const created = await worker.request('/v1/sessions', { token: alice, json: {} });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const running = await worker.request(`/v1/sessions/${id}/turns`, {
      token: alice,
      json: { prompt: 'slow' },
    });
    expect(running.status).toBe(200);

    proxy.freeze();
    const events = await streamEvents(running);
    const error = events.find((e) => e.type === 'error') as { error: { code?: string } } | undefined;
    expect(error?.error.code).toBe('unavailable');
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'error' });

    const ready = await worker.request('/v1/ready');
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('5');
    expect(((await ready.json()) as { reason: { code: string } }).reason.code).toBe('unavailable');
    const refused = await worker.request(`/v1/sessions/${id}`, { token: alice });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unavailable');
    expect((await worker.request('/v1/health')).status).toBe(200);

    const doctor = await birdie(['doctor'], { env: box.env, cwd: box.cwd });
    expect(doctor.code).toBe(1);
    expect(doctor.stderr).toMatch(/cannot reach the database server .*did not answer within 3 s/);
  });
});
