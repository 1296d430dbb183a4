import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CRASH_SAFE_SETTINGS, type PostgresServer, startPostgres } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { makeToken, startWorker, type Worker } from './helpers/serve.js';

// Exploratory report (ops, item 1): PostgreSQL stopped (`pg_ctl stop -m immediate`) while a turn streamed its tokens.
// The client's stream ended `done`/`result` status error with no `error` event, and once PostgreSQL was back the
// recorded log (what GET …/events replays) said a worker had stopped: it never did, the database was unreachable.
// This file crashes its own PostgreSQL server, so it shares it with no other test.

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: PostgresServer;
let box: Sandbox;
let worker: Worker;
let alice: string;

beforeAll(async () => {
  server = await startPostgres({ settings: CRASH_SAFE_SETTINGS });
  box = await sandbox({ BIRDIE_DATABASE_URL: server.url, BIRDIE_DATABASE_SCHEMA: 'outage' });
  const script = join(box.dir.path, 'model.json');
  // A slow answer: the database goes away while its tokens stream.
  await writeFile(
    script,
    JSON.stringify({
      replies: [{ match: 'slow', text: Array(40).fill('slow').join(' '), token_delay_ms: 100 }],
    }),
  );
  alice = await makeToken('alice', { env: box.env, cwd: box.cwd });
  worker = await startWorker(['--workspaces', join(box.dir.path, 'workspaces')], {
    env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
    cwd: box.cwd,
    home: join(box.dir.path, 'home-worker'),
  });
}, 120_000);

afterAll(async () => {
  worker?.process.kill('SIGKILL');
  await box?.cleanup();
  await server?.stop();
});

interface Block {
  id?: string;
  event: { type: string } & Record<string, unknown>;
}

/** The events of a raw `text/event-stream`, each with its `id:` when it had one. */
function blocks(text: string): Block[] {
  const found: Block[] = [];
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n');
    const data = lines.find((l) => l.startsWith('data: '));
    if (!data) continue;
    const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
    found.push({ ...(id !== undefined ? { id } : {}), event: JSON.parse(data.slice(6)) });
  }
  return found;
}

/** Reads the stream until its first `token` event, calls `then`, and reads on to the end. */
async function readAround(response: Response, then: () => Promise<void>): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let called = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
    if (!called && text.includes('event: token')) {
      called = true;
      await then();
    }
  }
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check().catch(() => false)) return;
    await pause(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('PostgreSQL stopped while a turn streams', { timeout: 180_000 }, () => {
  it('ends the stream with an `unavailable` error before done and result; once back, the log says the database was unreachable', async () => {
    const { id } = (await (await worker.request('/v1/sessions', { token: alice, json: {} })).json()) as {
      id: string;
    };
    const response = await worker.request(`/v1/sessions/${id}/turns`, {
      token: alice,
      json: { prompt: 'slow please' },
    });
    expect(response.status).toBe(200);
    const live = blocks(await readAround(response, () => server.crash()));

    // The end as the README promises it: an `error` event (unavailable) saying why, then `done` and `result`.
    const types = live.map((b) => b.event.type);
    expect(types.slice(-3)).toEqual(['error', 'done', 'result']);
    const error = live.at(-3)!.event as unknown as { error: { code: string; message: string } };
    expect(error.error.code).toBe('unavailable');
    expect(error.error.message).toMatch(/database could not be reached/);
    // Nothing internal: not the database's address.
    expect(error.error.message).not.toMatch(/postgres|socket|\/tmp/i);
    expect(live.at(-2)!.event).toEqual({ type: 'done', status: 'error' });
    expect(live.at(-1)!.event).toMatchObject({ type: 'result', status: 'error', session: id });
    // The events recorded before the outage came with their ids; those sent while it lasted have none.
    expect(live[0]).toMatchObject({ id: expect.stringMatching(/^\d+$/), event: { type: 'session' } });
    expect(live.at(-1)!.id).toBeUndefined();
    // The worker kept serving.
    expect(worker.process.child.exitCode).toBeNull();

    await server.start();
    await until(async () => (await worker.request('/v1/ready')).status === 200, 'the worker to be ready');
    // Back: the worker records the turn's end itself, in the same words, and a replay ends as the live stream did.
    const replay = blocks(await (await worker.request(`/v1/sessions/${id}/events`, { token: alice })).text());
    expect(replay.map((b) => b.event.type).slice(-3)).toEqual(['error', 'done', 'result']);
    expect(replay.every((b) => b.id !== undefined)).toBe(true);
    expect(replay.at(-3)!.event).toEqual(error);
    expect(replay.at(-1)!.event).toMatchObject({ type: 'result', status: 'error' });
    expect(JSON.stringify(replay)).not.toMatch(/turn-lost|worker running this turn stopped/);
    expect(worker.process.child.exitCode).toBeNull();
    // Report item 7: the outage, an expected event, is logged as the store's one sentence, never a stack trace.
    expect(worker.process.stderr()).toMatch(/cannot reach the database server/);
    expect(worker.process.stderr()).not.toMatch(/^\s+at /m);
  });
});
