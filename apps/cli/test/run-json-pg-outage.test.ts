import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CRASH_SAFE_SETTINGS, type PostgresServer, startPostgres } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie, startBirdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { jsonLines } from './helpers/sessions.js';

// Exploratory report (json, defect 1): PostgreSQL stopped while `birdie run --json` streamed its answer. A store call
// of the runtime's own (the run log's progress after the model call) failed, the turn ended `error`, and the stream
// went `done`, `result` with no `error` event: a script could not tell why. `birdie serve` closes its stream with
// one (serve-pg-outage.test.ts); `birdie run --json` must too, with the store's code, message and hint, as its text
// mode says them on stderr. This file crashes its own PostgreSQL server, so it shares it with no other test.

let server: PostgresServer;
let box: Sandbox;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startPostgres({ settings: CRASH_SAFE_SETTINGS });
  box = await sandbox({
    BIRDIE_DATABASE_URL: server.url,
    BIRDIE_DATABASE_SCHEMA: 'run_outage',
    BIRDIE_DATABASE_CONNECT_TIMEOUT_MS: '500',
  });
  const script = join(box.dir.path, 'model.json');
  // A slow answer: the database goes away while its tokens stream.
  await writeFile(
    script,
    JSON.stringify({
      replies: [
        { match: 'slow', text: Array(40).fill('slow').join(' '), token_delay_ms: 100 },
        { match: 'quick', text: 'Quick.' },
      ],
    }),
  );
  env = { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script };
}, 120_000);

afterAll(async () => {
  await box?.cleanup();
  await server?.stop();
});

interface Event {
  type: string;
  [key: string]: unknown;
}

describe('birdie run --json while PostgreSQL stops mid-turn', { timeout: 120_000 }, () => {
  it('ends the stream with an error event saying the store failed, then done and result; exit 1', async () => {
    const run = startBirdie(['run', '--json', 'say slow'], { env, cwd: box.cwd, timeoutMs: 90_000 });
    await run.waitFor('stdout', /"type":"token"/, 60_000);
    await server.crash();
    const ended = await run.exited;
    expect(ended.code, ended.stderr).toBe(1);
    expect(ended.stderr).not.toMatch(/^\s+at /m);

    const events = jsonLines<Event>(ended.stdout);
    expect(events.map((e) => e.type).slice(-3)).toEqual(['error', 'done', 'result']);
    const [error, done, result] = events.slice(-3);
    // The store's code, message and hint, as the text mode's line on stderr says them.
    expect(error).toEqual({
      type: 'error',
      error: {
        code: 'unavailable',
        message: expect.stringMatching(/^cannot reach the database server /),
        hint: expect.stringMatching(/^check that the server is running/),
      },
    });
    expect(done).toEqual({ type: 'done', status: 'error' });
    expect(result).toMatchObject({ type: 'result', status: 'error', session: events[0]!.id });
  });

  // A sibling: `birdie logs --follow --json` polls the store until Ctrl+C; the store failing while it follows ends it
  // with the failure as its last line, the object every `--json` command prints when it fails.
  it('birdie logs --follow --json ends with the failure object as its last line; exit 1', async () => {
    await server.start();
    const quick = await birdie(['run', '--json', 'quick'], { env, cwd: box.cwd });
    expect(quick.code, quick.stderr).toBe(0);
    const follow = startBirdie(['logs', '--follow', '--json'], { env, cwd: box.cwd, timeoutMs: 90_000 });
    await follow.waitFor('stdout', /"status":"ok"/, 60_000);
    await server.crash();
    const ended = await follow.exited;
    expect(ended.code, ended.stderr).toBe(1);
    const lines = jsonLines<Record<string, unknown>>(ended.stdout);
    expect(lines.at(-1)).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect(lines.slice(0, -1).every((run) => typeof run.id === 'number')).toBe(true);
    expect(ended.stderr).toMatch(/^birdie: cannot reach the database server/m);
    expect(ended.stderr).not.toMatch(/^\s+at /m);
  });
});
