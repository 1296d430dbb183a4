import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { makeToken, startWorker, streamEvents, type Worker } from './helpers/serve.js';

// Issue 27, "operable": `birdie serve` on one SQLite worker with its metrics on a listener of their own.

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
      ],
    }),
  );
  box.env.LLM_SCRIPT = script;
  token = await makeToken('alice', { env: box.env, cwd: box.cwd });
  worker = await startWorker(['--metrics-port', '0'], {
    env: box.env,
    cwd: box.cwd,
    home: box.home,
  });
  const [, url] = (await worker.process.waitFor(
    'stderr',
    /metrics on (http:\/\/\S+)\/metrics/,
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
