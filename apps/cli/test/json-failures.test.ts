import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie, type Finished } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { script } from './helpers/sessions.js';

// Exploratory report (json, defect 2): `birdie sessions list --json` and `birdie logs --json` printed nothing on
// stdout when the store failed (a SQLite file that is not a database, a PostgreSQL server that is down); the reason
// went to stderr only. A script using `--json` reads stdout: every command with `--json` (but `run`, whose stream
// has its own end) now prints one JSON object there when it fails — `ok` false and `error` with `code`, `message`
// and `hint?` — as `db status --json` already did; the sentence a person reads stays on stderr, and the exit code is
// the same.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  birdie(args, { env: { ...box.env, ...env }, cwd: box.cwd });

/** The one JSON object a failed `--json` command printed on stdout. */
function failureObject(result: Finished): {
  ok: boolean;
  error: { code: string; message: string; hint?: string };
} {
  const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
  expect(lines, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

/** Every command whose `--json` output is on stdout, as a script would call it. */
const STORE_COMMANDS: string[][] = [
  ['sessions', 'list'],
  ['sessions', 'show', '2026-01-01_1'],
  ['sessions', 'repair', '2026-01-01_1'],
  ['logs'],
  ['logs', 'show', '1'],
  ['tasks', 'list'],
  ['tokens', 'list'],
  ['tokens', 'create', '--user', 'alice'],
  ['skills', 'list'],
  ['agents', 'list'],
  ['mcp', 'list'],
  ['trust', '--list'],
  // Its log is on stderr; what it prints on stdout (`scheduled`) is JSON, and so is its failure.
  ['start'],
  ['db', 'status'],
  ['db', 'migrate'],
];

describe('--json commands on a SQLite file that is not a database', () => {
  let file: string;
  let provider: NodeJS.ProcessEnv;
  beforeEach(async () => {
    file = join(box.home, 'birdie.db');
    await writeFile(file, 'this is not a database\n');
    // A provider, so that the commands that load one (`start`) reach the store.
    provider = await script(box.dir.path, 'model', [{ text: 'Hello.' }]);
  });

  it.each(STORE_COMMANDS.map((args) => [args.join(' '), args]))(
    'birdie %s --json: the failure as JSON on stdout, the sentence on stderr; exit 1',
    async (_name, args) => {
      const result = await cli([...(args as string[]), '--json'], provider);
      expect(result.code, result.stderr).toBe(1);
      const failure = failureObject(result);
      expect(failure).toEqual({
        ok: false,
        error: {
          code: 'malformed',
          message: `${file} is malformed (SQLite: file is not a database); nothing more is written into it`,
          hint: expect.stringContaining(`sqlite3 ${file} .recover`),
        },
      });
      // What a person reads: the same message and hint, once, on stderr; no stack trace.
      expect(result.stderr).toBe(`birdie: ${failure.error.message} (${failure.error.hint})\n`);
    },
  );

  it('without --json nothing changes: stdout is empty, the sentence is on stderr', async () => {
    const result = await cli(['sessions', 'list']);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^birdie: .* is malformed/);
  });

  it('birdie doctor --json keeps its report, with the same error field', async () => {
    const result = await cli(['doctor', '--json']);
    expect(result.code).toBe(1);
    const report = failureObject(result) as unknown as Record<string, unknown>;
    expect(report).toMatchObject({
      ok: false,
      location: file,
      checked: 0,
      error: { code: 'malformed', message: expect.stringContaining('file is not a database') },
    });
  });
});

describe('--json commands when the PostgreSQL server is down', () => {
  // No server listens on this socket: the connection is refused at once.
  const down = { BIRDIE_DATABASE_URL: 'postgresql://birdie@/birdie?host=/nonexistent-birdie-socket-dir' };

  it.each([
    ['sessions list', ['sessions', 'list']],
    ['logs', ['logs']],
  ])('birdie %s --json: unavailable, as JSON on stdout; exit 1', async (_name, args) => {
    const result = await cli([...args, '--json'], down);
    expect(result.code, result.stderr).toBe(1);
    const failure = failureObject(result);
    expect(failure).toMatchObject({ ok: false, error: { code: 'unavailable', message: expect.any(String) } });
    expect(result.stderr).toContain(`birdie: ${failure.error.message}`);
  });
});

describe('--json commands with a usage error', () => {
  it('a session id that is not one: code usage, exit 2', async () => {
    const result = await cli(['sessions', 'show', 'not-an-id', '--json']);
    expect(result.code).toBe(2);
    const failure = failureObject(result);
    expect(failure).toEqual({ ok: false, error: { code: 'usage', message: expect.any(String) } });
    expect(result.stderr).toBe(`birdie: ${failure.error.message}\n`);
  });

  it('a config file that is not JSON: config list --json says so as JSON, exit 2', async () => {
    const config = join(box.dir.path, 'broken.json');
    await writeFile(config, '{ not json');
    const result = await cli(['config', 'list', '--config', config, '--json']);
    expect(result.code).toBe(2);
    const failure = failureObject(result);
    expect(failure).toMatchObject({ ok: false, error: { code: 'usage' } });
    expect(failure.error.message).toContain(config);
  });
});
