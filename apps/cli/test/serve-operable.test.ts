import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { makeToken, startWorker, streamEvents, type Worker } from './helpers/serve.js';

// Issue 27, "operable": `birdie serve` on one SQLite worker with its metrics on a listener of their own and its
// log as JSON lines.

let box: Sandbox;
let worker: Worker;
let metricsUrl: string;
let token: string;

beforeAll(async () => {
  box = await sandbox({
    BIRDIE_BUNDLED_SKILLS: join(CLI_ROOT, '..', '..', 'skills'),
    LLM_VENDOR: 'scripted',
  });
  // One turn with one call of a first-party tool (the todo skill's, in-process).
  const script = join(box.dir.path, 'script.json');
  await writeFile(
    script,
    JSON.stringify({
      replies: [
        { match: 'plan it', tool_calls: [{ name: 'todo_create_plan', args: { steps: ['One', 'Two'] } }] },
        { match: 'plan it', text: 'Planned.' },
        // The scripted model uses each reply once: the second turn's.
        { match: 'plan again', text: 'Planned again.' },
      ],
    }),
  );
  box.env.LLM_SCRIPT = script;
  token = await makeToken('alice', { env: box.env, cwd: box.cwd });
  worker = await startWorker(['--metrics-port', '0', '--log-format', 'json'], {
    env: box.env,
    cwd: box.cwd,
    home: box.home,
  });
  const [, url] = (await worker.process.waitFor(
    'stderr',
    /metrics on (http:\/\/[^\s"]+)\/metrics/,
    30_000,
  )) as RegExpMatchArray;
  metricsUrl = url!;
}, 120_000);

afterAll(async () => {
  worker?.process.kill('SIGKILL');
  await box?.cleanup();
});

describe('birdie serve --metrics-port', () => {
  it('serves the Prometheus metrics of the turns it ran on loopback, without a token', async () => {
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { id } = (await (await worker.request('/v1/sessions', { token, json: {} })).json()) as {
      id: string;
    };
    const turn = await streamEvents(
      await worker.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'plan it' } }),
    );
    expect(turn.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    const response = await fetch(`${metricsUrl}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(/^birdie_turns_finished_total\{status="ok"\} 1$/m);
    // The call's outcome, whichever the session's skills make it, is counted as the stream told it.
    const end = turn.find((e) => e.type === 'tool-end')!;
    const outcome = end.ok ? 'ok' : 'error';
    expect(text).toMatch(
      new RegExp(`^birdie_tool_calls_total\\{tool="todo_create_plan",outcome="${outcome}"\\} 1$`, 'm'),
    );
    expect(text).toMatch(
      /^birdie_model_tokens_total\{model="scripted:scripted",direction="output"\} [1-9]\d*$/m,
    );
    expect(text).toMatch(/^birdie_turn_duration_seconds_count\{status="ok"\} 1$/m);
    expect(text).toMatch(/^birdie_active_sessions 0$/m);
    // The API's own listener serves it only to an admin token.
    expect((await worker.request('/metrics', { token })).status).toBe(403);
  });
});

describe('birdie serve --log-format json', () => {
  it('writes every stderr line as one JSON object; requests and turns carry the request id the client got', async () => {
    const { id } = (await (await worker.request('/v1/sessions', { token, json: {} })).json()) as {
      id: string;
    };
    const response = await fetch(`${worker.url}/v1/sessions/${id}/turns`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'x-request-id': 'trace-1',
      },
      body: JSON.stringify({ prompt: 'plan again' }),
    });
    expect(response.headers.get('x-request-id')).toBe('trace-1');
    await streamEvents(response);
    await worker.process.waitFor('stderr', /"msg":"turn finished","requestId":"trace-1"/, 30_000);
    const lines = worker.process
      .stderr()
      .split('\n')
      .filter((line) => line !== '');
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const entry of entries) {
      expect(typeof entry.time, JSON.stringify(entry)).toBe('string');
      expect(['info', 'warn', 'error']).toContain(entry.level);
      expect(typeof entry.msg).toBe('string');
    }
    expect(entries.some((e) => String(e.msg).startsWith('store sqlite'))).toBe(true);
    expect(entries.some((e) => String(e.msg).startsWith('metrics on http://127.0.0.1:'))).toBe(true);
    expect(entries).toContainEqual(
      expect.objectContaining({
        msg: 'request',
        requestId: 'trace-1',
        method: 'POST',
        path: `/v1/sessions/${id}/turns`,
        status: 200,
        userId: 'alice',
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ msg: 'turn finished', requestId: 'trace-1', sessionId: id, status: 'ok' }),
    );
    // The token itself is never logged.
    expect(worker.process.stderr()).not.toContain(token);
  });
});
