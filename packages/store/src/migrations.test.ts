import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from './schema.js';
import { openStore } from './store.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A file as the first release wrote it: schema 1 with a session, grants, a run and two tool calls. */
function firstReleaseFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'birdie-store-v1-'));
  dirs.push(dir);
  const file = join(dir, 'birdie.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(MIGRATIONS[0]!);
  db.pragma('user_version = 1');
  db.prepare(
    `INSERT INTO sessions (id, user_id, day, seq, created_at, updated_at) VALUES ('2026-01-02_1', 'alice', '2026-01-02', 1, 1000, 1000)`,
  ).run();
  db.prepare(
    `INSERT INTO grants (session_id, enabled, disabled) VALUES ('2026-01-02_1', '["web"]', '[]')`,
  ).run();
  db.prepare(
    `INSERT INTO runs (id, session_id, status, started_at, ended_at) VALUES (7, '2026-01-02_1', 'ok', 1000, 5000)`,
  ).run();
  const tool = db.prepare(
    'INSERT INTO tool_calls (run_id, name, skill, duration_ms, ok, truncated, error, at) VALUES (7, ?, ?, ?, ?, ?, ?, ?)',
  );
  tool.run('fetch', 'web', 40, 1, 1, null, 2000);
  tool.run('sh', null, 5, 0, 0, 'exit 1', 3000);
  db.close();
  return file;
}

describe('migration 2', () => {
  it('keeps the first release’s run log and grants readable, with tool call statuses', async () => {
    const store = openStore({ file: firstReleaseFile() });
    try {
      const [run] = await store.runs.list({ userId: 'alice' });
      expect(run!.toolCalls).toEqual([
        {
          id: 1,
          name: 'fetch',
          skill: 'web',
          status: 'ok',
          resultUnknown: false,
          startedAt: new Date(1960),
          endedAt: new Date(2000),
          durationMs: 40,
          truncated: true,
        },
        {
          id: 2,
          name: 'sh',
          status: 'error',
          resultUnknown: false,
          startedAt: new Date(2995),
          endedAt: new Date(3000),
          durationMs: 5,
          truncated: false,
          error: 'exit 1',
        },
      ]);
      expect(await store.grants.get('2026-01-02_1', 'alice')).toEqual({ enabled: ['web'], disabled: [] });
      // The migrated table takes journal rows next to the old ones.
      const journal = await store.runs.journal(7);
      await journal.started({ id: 'call_new', name: 'fetch' });
      expect(await journal.startedAmong(['call_new'])).toEqual(new Set(['call_new']));
    } finally {
      await store.close();
    }
  });
});
