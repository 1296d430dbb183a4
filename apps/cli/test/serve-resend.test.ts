import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type PostgresServer, startPostgres } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';
import { makeToken, readThenCut, startWorker, streamEvents, type Worker } from './helpers/serve.js';
import { STORE_SKILLS } from './helpers/sessions.js';

// Issue 27, "a turn is submitted once": two `birdie serve` workers on one PostgreSQL database. A client's stream is
// cut mid-turn; it resends the turn with the same Idempotency-Key to the other worker, and reattaches there with
// Last-Event-ID. Each follows the one turn to its end; its tool ran once.

let pg: PostgresServer;
let box: Sandbox;
/** The users' workspaces (`--workspaces`): the tools run there, sandboxed, so the test's files live there too. */
let root: string;
let a: Worker;
let b: Worker;
let alice: string;
const files = { effects: '', started: '', release: '' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  pg = await startPostgres();
  box = await sandbox({ BIRDIE_DATABASE_URL: pg.url, BIRDIE_DATABASE_SCHEMA: `resend_${process.pid}` });
  root = join(box.dir.path, 'workspaces');
  files.effects = join(root, 'alice', 'effects.txt');
  files.started = join(root, 'alice', 'started.txt');
  files.release = join(root, 'alice', 'release');
  // Worker a answers the turn: a tool with an effect, then one that holds the turn until the test releases it.
  const script = join(box.dir.path, 'a.json');
  await writeFile(
    script,
    JSON.stringify({
      replies: [
        {
          match: 'append once',
          tool_calls: [{ name: 'append_token', args: { delay: '0', token: 'once', file: 'effects.txt' } }],
        },
        {
          match: 'append once',
          tool_calls: [
            { name: 'gated_step', args: { token: 'held', started: 'started.txt', release: 'release' } },
          ],
        },
        { match: 'append once', text: 'Appended once.' },
      ],
    }),
  );
  const empty = join(box.dir.path, 'b.json');
  await writeFile(empty, JSON.stringify({ replies: [] }));
  alice = await makeToken('alice', { env: box.env, cwd: box.cwd });
  const worker = (name: string, replies: string) =>
    startWorker(
      ['--skills-dir', TEST_SKILLS, '--skills-dir', STORE_SKILLS, '--grace', '1', '--workspaces', root],
      {
        env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: replies },
        cwd: box.cwd,
        home: join(box.dir.path, `home-${name}`),
      },
    );
  [a, b] = await Promise.all([worker('a', script), worker('b', empty)]);
}, 120_000);

afterAll(async () => {
  await writeFile(files.release, '').catch(() => {});
  for (const w of [a, b]) w?.process.kill('SIGKILL');
  await box?.cleanup();
  await pg?.stop();
});

const post = (w: Worker, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${w.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('a turn is submitted once, across workers', { timeout: 120_000 }, () => {
  it('a cut stream: the resend with its Idempotency-Key and GET …/events on the other worker follow the one turn; its tool ran once', async () => {
    const created = await post(a, '/v1/sessions', {});
    const { id } = (await created.json()) as { id: string };
    const key = { 'Idempotency-Key': 'c0ffee-0001' };
    const first = await post(a, `/v1/sessions/${id}/turns`, { prompt: 'append once' }, key);
    expect(first.status).toBe(200);
    const cut = await readThenCut(first, (e) => e.type === 'tool-start' && e.name === 'gated_step');
    expect(cut.events.filter((e) => e.type === 'tool-end').map((e) => e.name)).toEqual(['append_token']);
    expect(cut.lastId).toBeGreaterThan(0);

    // The client does not know what happened: it resends, to the other worker, and also reattaches there.
    const resent = await post(b, `/v1/sessions/${id}/turns`, { prompt: 'append once' }, key);
    expect(resent.status).toBe(200);
    const reattached = await fetch(`${b.url}/v1/sessions/${id}/events`, {
      headers: { authorization: `Bearer ${alice}`, 'Last-Event-ID': String(cut.lastId) },
    });
    expect(reattached.status).toBe(200);
    while (!(await readFile(files.started, 'utf8').catch(() => '')).includes('held')) await pause(50);
    await writeFile(files.release, '');

    const replay = await streamEvents(resent);
    const rest = await streamEvents(reattached);
    // The resend is the whole turn (its first part replayed); the reattached stream is what came after the cut.
    expect(replay[0]).toMatchObject({ type: 'session', id });
    expect(replay.filter((e) => e.type === 'tool-end').map((e) => e.name)).toEqual([
      'append_token',
      'gated_step',
    ]);
    expect(replay.at(-1)).toMatchObject({ type: 'result', status: 'ok', session: id });
    expect(rest.map((e) => e.type)).not.toContain('tool-start');
    expect(rest.filter((e) => e.type === 'tool-end').map((e) => e.name)).toEqual(['gated_step']);
    expect(rest.at(-1)).toEqual(replay.at(-1));
    // The tool with an effect ran once, and the session has one turn.
    expect(await readFile(files.effects, 'utf8')).toBe('once\n');
    const runs = (await (
      await fetch(`${b.url}/v1/runs?session=${id}`, { headers: { authorization: `Bearer ${alice}` } })
    ).json()) as { runs: unknown[] };
    expect(runs.runs).toHaveLength(1);

    // Once finished, the key still answers with that turn; with another prompt it is refused.
    const later = await streamEvents(
      await post(a, `/v1/sessions/${id}/turns`, { prompt: 'append once' }, key),
    );
    expect(later.at(-1)).toEqual(replay.at(-1));
    const other = await post(b, `/v1/sessions/${id}/turns`, { prompt: 'append twice' }, key);
    expect(other.status).toBe(422);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('idempotency-key-reused');
    expect(await readFile(files.effects, 'utf8')).toBe('once\n');
  });
});
