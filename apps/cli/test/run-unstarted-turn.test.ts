import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { openStore, type SessionLease } from '@birdie/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BirdieProcess, birdie, startBirdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { type MountNamespace, smallDisk } from './helpers/mounts.js';
import { jsonLines, script, sessionIdOf } from './helpers/sessions.js';

// A turn of `birdie run` that cannot start once its `session` event is out (the session is busy, the wait for it is
// stopped by a signal): a script reading `--json` still gets the documented end of the stream, `done` then `result`,
// with the reason as an `error` event; the text mode says it in one line. The lease is held by this test process
// through the store API, so the session is busy for certain, not by timing.

const ISO = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';

let box: Sandbox;
let store: ReturnType<typeof openStore>;
let running: BirdieProcess[] = [];
let namespace: MountNamespace | undefined;
beforeEach(async () => {
  box = await sandbox();
  store = openStore({ home: box.home });
});
afterEach(async () => {
  for (const p of running) p.kill('SIGKILL');
  running = [];
  namespace?.close();
  namespace = undefined;
  store.close();
  await box.cleanup();
});

interface Event {
  type: string;
  [key: string]: unknown;
}

/** A session with one finished turn, and its lease held by this process until the test ends. */
async function busySession(): Promise<{ id: string; env: NodeJS.ProcessEnv; lease: SessionLease }> {
  const env = { ...box.env, ...(await script(box.dir.path, 'answers', [{ text: 'Hello.' }])) };
  const first = await birdie(['run', '--json', 'hello'], { env, cwd: box.cwd });
  expect(first.code, first.stderr).toBe(0);
  const id = sessionIdOf(first.stdout);
  const lease = await store.leases.acquire(id, { waitMs: 0 });
  return { id, env, lease };
}

const busyLine = (id: string) =>
  `birdie: session ${id} is in use by process ${process.pid} on ${hostname()} since ${ISO} \\(wait for that process to finish; if it stopped without letting go, its lease expires at ${ISO}; or pass --wait SECONDS\\)\\n`;

const waitingLine = (id: string) =>
  `birdie: session ${id} is in use by process ${process.pid} on ${hostname()} since ${ISO}; waiting up to 60 s \\(Ctrl\\+C stops\\)\\n`;

describe('birdie run on a session another process holds', { timeout: 60_000 }, () => {
  it('--json: the session event, then an error event with session-busy, done and result; exit 3', async () => {
    const { id, env } = await busySession();
    const busy = await birdie(['run', '--json', '--session-id', id, 'other'], { env, cwd: box.cwd });
    expect(busy.code, busy.stderr).toBe(3);
    expect(busy.stderr).toMatch(new RegExp(`^${busyLine(id)}$`));
    const events = jsonLines<Event>(busy.stdout);
    expect(events.map((e) => e.type)).toEqual(['session', 'error', 'done', 'result']);
    const [, error, done, result] = events;
    expect(error).toEqual({
      type: 'error',
      error: {
        code: 'session-busy',
        message: expect.stringMatching(
          new RegExp(`^session ${id} is in use by process ${process.pid} on ${hostname()} since ${ISO}$`),
        ),
        hint: expect.stringMatching(/its lease expires at .*; or pass --wait SECONDS$/),
      },
    });
    expect(done).toEqual({ type: 'done', status: 'error' });
    // The turn never started: no run in the log, so the result names none.
    expect(result).toEqual({ type: 'result', status: 'error', session: id, inputTokens: 0, outputTokens: 0 });
    const logs = await birdie(['logs', '--session', id, '--json'], { env, cwd: box.cwd });
    expect(jsonLines<{ status: string }>(logs.stdout).map((r) => r.status)).toEqual(['ok']);
  });

  it('text: one line on stderr naming the holder, nothing on stdout; exit 3', async () => {
    const { id, env } = await busySession();
    const busy = await birdie(['run', '--session-id', id, 'other'], { env, cwd: box.cwd });
    expect(busy).toMatchObject({ code: 3, stdout: '' });
    expect(busy.stderr).toMatch(new RegExp(`^${busyLine(id)}$`));
  });

  it("a finished turn's result has the same fields as birdie serve's (the run's id is in birdie logs)", async () => {
    const env = { ...box.env, ...(await script(box.dir.path, 'answers', [{ text: 'Hello.' }])) };
    const first = await birdie(['run', '--json', 'hello'], { env, cwd: box.cwd });
    expect(first.code, first.stderr).toBe(0);
    expect(jsonLines<Event>(first.stdout).at(-1)).toEqual({
      type: 'result',
      status: 'ok',
      session: sessionIdOf(first.stdout),
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
    });
  });
});

describe('birdie run --wait stopped by a signal while it waits for the session', { timeout: 60_000 }, () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`--json, ${signal}: the session event, then done and result cancelled; exit 1, no stack`, async () => {
      const { id, env } = await busySession();
      const waiter = startBirdie(['run', '--json', '--wait', '60', '--session-id', id, 'other'], {
        env,
        cwd: box.cwd,
      });
      running.push(waiter);
      await waiter.waitFor('stderr', new RegExp(waitingLine(id)));
      waiter.kill(signal);
      const ended = await waiter.exited;
      expect(ended.code, ended.stderr).toBe(1);
      expect(ended.stderr).toMatch(new RegExp(`^${waitingLine(id)}birdie: interrupted\\n$`));
      const events = jsonLines<Event>(ended.stdout);
      expect(events.map((e) => e.type)).toEqual(['session', 'done', 'result']);
      expect(events.slice(1)).toEqual([
        { type: 'done', status: 'cancelled' },
        { type: 'result', status: 'cancelled', session: id, inputTokens: 0, outputTokens: 0 },
      ]);
    });
  }

  it('text, SIGTERM: the waiting line, then "birdie: interrupted"; exit 1', async () => {
    const { id, env } = await busySession();
    const waiter = startBirdie(['run', '--wait', '60', '--session-id', id, 'other'], { env, cwd: box.cwd });
    running.push(waiter);
    await waiter.waitFor('stderr', new RegExp(waitingLine(id)));
    waiter.kill('SIGTERM');
    const ended = await waiter.exited;
    expect(ended).toMatchObject({ code: 1, stdout: '' });
    expect(ended.stderr).toMatch(new RegExp(`^${waitingLine(id)}birdie: interrupted\\n$`));
  });
});

describe.runIf(process.platform === 'linux')(
  'birdie run --json when the store fails',
  { timeout: 60_000 },
  () => {
    // A full disk fails the run before its session is open (the session is written first): no stream at all, not a
    // stream without its end; the one line on stderr and the exit code say why.
    it('a full disk (a 2 MB tmpfs) on an existing session: nothing on stdout, one line on stderr; exit 1', async () => {
      store.close();
      namespace = await smallDisk(box.home, '2m');
      const inside = namespace.wrap(box.cwd);
      const env = { ...box.env, ...(await script(box.dir.path, 'answers', [{ text: 'Hello.' }])) };
      const first = await birdie(['run', '--json', 'hello'], { env, cwd: box.cwd, wrap: inside });
      expect(first.code, first.stderr).toBe(0);
      const id = sessionIdOf(first.stdout);
      spawnSync(inside[0]!, [
        ...inside.slice(1),
        'sh',
        '-c',
        'cat /dev/zero > "$1"',
        'sh',
        join(box.home, 'filler'),
      ]);

      const full = await birdie(['run', '--json', '--session-id', id, 'again'], {
        env,
        cwd: box.cwd,
        wrap: inside,
      });
      const file = join(box.home, 'birdie.db');
      expect(full).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: `birdie: the disk holding ${file} is full (0 B free); the last saved step is intact (free space on the disk that holds ${box.home}, then try again)\n`,
      });
    });
  },
);
