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

/**
 * A file of the release before the migration whose SQL contains `marker`: every earlier migration applied, its
 * version set, the database left open for the test's rows.
 */
function fileBefore(marker: string): { file: string; db: Database.Database } {
  const dir = mkdtempSync(join(tmpdir(), 'birdie-store-before-'));
  dirs.push(dir);
  const file = join(dir, 'birdie.db');
  const db = new Database(file);
  const before = MIGRATIONS.findIndex((sql) => sql.includes(marker));
  if (before < 0) throw new Error(`no migration contains ${marker}`);
  for (const sql of MIGRATIONS.slice(0, before)) db.exec(sql);
  db.pragma(`user_version = ${before}`);
  return { file, db };
}

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

/** A file as the agents release wrote it (schema 3): three runs of alice, one of them left running by a dead process. */
function agentsReleaseFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'birdie-store-v3-'));
  dirs.push(dir);
  const file = join(dir, 'birdie.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  for (const sql of MIGRATIONS.slice(0, 3)) db.exec(sql);
  db.pragma('user_version = 3');
  db.prepare(
    `INSERT INTO sessions (id, user_id, day, seq, created_at, updated_at) VALUES ('2026-01-02_1', 'alice', '2026-01-02', 1, 1000, 1000)`,
  ).run();
  const run = db.prepare(
    `INSERT INTO runs (id, session_id, model, agent, agent_digest, status, started_at, ended_at, input_tokens, output_tokens, error)
     VALUES (?, '2026-01-02_1', 'openai/gpt-4o-mini', ?, ?, ?, 1000, ?, ?, ?, ?)`,
  );
  run.run(1, 'reviewer', 'a'.repeat(64), 'ok', 2000, 120, 30, null);
  run.run(
    2,
    null,
    null,
    'interrupted',
    3000,
    0,
    0,
    'interrupted: process 4242 on vm stopped holding the session',
  );
  run.run(3, null, null, 'running', null, 0, 0, null);
  run.run(4, null, null, 'interrupted', 4000, 5, 1, 'interrupted (SIGINT)');
  db.close();
  return file;
}

describe('migration 4', () => {
  it('maps the old run log: user and thread from the session, tokens under their model, taken-over runs died', async () => {
    const store = openStore({ file: agentsReleaseFile() });
    try {
      const runs = await store.runs.list({ userId: 'alice' });
      expect(runs.map((r) => [r.id, r.status])).toEqual([
        [4, 'interrupted'],
        // Left running with nobody holding its session: the opening store marks it.
        [3, 'died'],
        [2, 'died'],
        [1, 'ok'],
      ]);
      const first = runs.find((r) => r.id === 1)!;
      expect(first).toMatchObject({
        userId: 'alice',
        sessionId: '2026-01-02_1',
        threadId: '2026-01-02_1',
        agent: { name: 'reviewer', digest: 'a'.repeat(64) },
        usage: [{ model: 'openai/gpt-4o-mini', inputTokens: 120, outputTokens: 30 }],
      });
      expect(runs.find((r) => r.id === 3)!.error).toBe(
        'died: the process running it stopped without finishing it',
      );
      expect(runs.find((r) => r.id === 2)!.usage).toEqual([]);
      // The new tables take rows.
      const task = await store.tasks.create({ userId: 'alice', prompt: 'water the plants', every: 3600 });
      expect((await store.tasks.list('alice')).map((t) => t.id)).toEqual([task.id]);
    } finally {
      await store.close();
    }
  });
});

describe('token-roles', () => {
  it('keeps the tokens of a serve release, each a user token', async () => {
    const { file, db } = fileBefore('ADD COLUMN admin');
    db.prepare(
      `INSERT INTO api_tokens (id, user_id, name, hash, created_at) VALUES ('tok_00000000000000aa', 'alice', NULL, ?, 1000)`,
    ).run('0'.repeat(64));
    db.close();
    const store = openStore({ file });
    try {
      expect(await store.tokens.list()).toEqual([
        { id: 'tok_00000000000000aa', userId: 'alice', admin: false, createdAt: new Date(1000) },
      ]);
    } finally {
      await store.close();
    }
  });
});

describe('per-user-numbers', () => {
  /** A file of the release before: alice's and bob's sessions numbered across the store, with rows that refer to them. */
  function storeWideFile(): string {
    const { file, db } = fileBefore('sessions_v8');
    const session = db.prepare(
      `INSERT INTO sessions (id, user_id, day, seq, title, agent, created_at, updated_at, turns)
       VALUES (?, ?, '2026-11-29', ?, ?, ?, ?, ?, 2)`,
    );
    session.run('2026-11-29_1', 'alice', 1, 'first', 'helper', 1000, 2000);
    session.run('2026-11-29_2', 'bob', 2, null, null, 3000, 3000);
    db.prepare(
      `INSERT INTO grants (session_id, enabled, disabled) VALUES ('2026-11-29_1', '["web"]', '[]')`,
    ).run();
    db.prepare(
      `INSERT INTO runs (id, session_id, user_id, thread_id, status, started_at) VALUES (7, '2026-11-29_2', 'bob', '2026-11-29_2', 'ok', 3000)`,
    ).run();
    db.prepare(
      `INSERT INTO session_files (session_id, path, size, sha256, content, updated_at) VALUES ('2026-11-29_1', 'notes.md', 2, ?, ?, 1000)`,
    ).run('a'.repeat(64), Buffer.from('hi'));
    db.close();
    return file;
  }

  it('keeps every session, its id and the rows that refer to it, and numbers new ones per scope', async () => {
    const file = storeWideFile();
    const store = openStore({ file });
    try {
      expect(await store.sessions.get('2026-11-29_1', 'alice')).toMatchObject({
        id: '2026-11-29_1',
        title: 'first',
        agent: 'helper',
        turns: 2,
      });
      expect((await store.sessions.list('bob')).map((s) => s.id)).toEqual(['2026-11-29_2']);
      expect((await store.grants.get('2026-11-29_1', 'alice')).enabled).toEqual(['web']);
      expect((await store.files.list('2026-11-29_1', 'alice')).map((f) => f.path)).toEqual(['notes.md']);
      expect((await store.runs.list({ userId: 'bob' })).map((r) => r.id)).toEqual([7]);
      const now = new Date(2026, 10, 29, 12);
      // The store's numbering goes on after the existing ids; a user's own starts at 1 for each user.
      expect((await store.sessions.create('alice', { now })).id).toBe('2026-11-29_3');
      expect((await store.sessions.create('bob', { now, perUser: true })).id).toBe('bob~2026-11-29_1');
      expect((await store.sessions.create('alice', { now, perUser: true })).id).toBe('alice~2026-11-29_1');
      // The rows still refer to the rebuilt table: deleting a session deletes its grants, files and runs.
      await store.sessions.delete('2026-11-29_1', 'alice');
      await store.sessions.delete('2026-11-29_2', 'bob');
    } finally {
      await store.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('foreign_key_check')).toEqual([]);
      for (const table of ['grants', 'session_files', 'runs'])
        expect(db.prepare(`SELECT count(*) AS n FROM ${table}`).get(), table).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });
});

describe('task-failures (v11)', () => {
  it('keeps every task as it was and lets a one-time task end `failed`', async () => {
    const { file, db } = fileBefore('tasks_v11');
    const task = db.prepare(
      `INSERT INTO tasks (user_id, prompt, every_s, at, status, created_at, ended_at) VALUES ('alice', ?, ?, ?, ?, 1000, ?)`,
    );
    task.run('hourly', 3600, null, 'active', null);
    task.run('once', null, 5000, 'done', 6000);
    task.run('later', null, 9000, 'active', null);
    db.close();
    const store = openStore({ file });
    try {
      const kept = await store.tasks.list('alice', { all: true });
      expect(kept.map((t) => [t.id, t.prompt, t.status, t.endedAt?.getTime()])).toEqual([
        [1, 'hourly', 'active', undefined],
        [2, 'once', 'done', 6000],
        [3, 'later', 'active', undefined],
      ]);
      await store.tasks.finish(3, { error: 'error: no reply (run 4)' });
      expect(await store.tasks.get(3, 'alice')).toMatchObject({
        status: 'failed',
        error: 'error: no reply (run 4)',
      });
      const next = await store.tasks.create({ userId: 'alice', prompt: 'new', every: 60 });
      expect(next.id).toBe(4);
    } finally {
      await store.close();
    }
  });
});

describe('task-grants (v12)', () => {
  it('keeps older tasks without grants and stores a new task with the grants it was scheduled with', async () => {
    const { file, db } = fileBefore('ADD COLUMN grants');
    db.prepare(
      `INSERT INTO tasks (user_id, prompt, every_s, status, created_at, created_by_run) VALUES ('alice', 'hourly', 3600, 'active', 1000, 7)`,
    ).run();
    db.close();
    const store = openStore({ file });
    try {
      const [old] = await store.tasks.list('alice');
      expect(old).toMatchObject({ id: 1, prompt: 'hourly', createdByRun: 7 });
      expect(old).not.toHaveProperty('grants');
      const grants = { enabled: ['filesystem'], disabled: ['shell'], sources: { filesystem: 'bundled:/x' } };
      const made = await store.tasks.create({ userId: 'alice', prompt: 'new', every: 60, grants });
      expect(made.grants).toEqual(grants);
      expect((await store.tasks.get(made.id, 'alice'))?.grants).toEqual(grants);
      await expect(
        store.tasks.create({
          userId: 'alice',
          prompt: 'bad',
          every: 60,
          grants: { enabled: [1 as unknown as string], disabled: [] },
        }),
      ).rejects.toMatchObject({ code: 'invalid-argument' });
    } finally {
      await store.close();
    }
  });
});

describe('task-origin (v13)', () => {
  it('gives older tasks the session of the run that scheduled them, and keeps a new task’s after its session goes', async () => {
    const { file, db } = fileBefore('ADD COLUMN origin_session');
    db.prepare(
      `INSERT INTO sessions (id, user_id, day, seq, created_at, updated_at, scope) VALUES ('alice~1', 'alice', '2026-12-01', 1, 1000, 1000, 'alice')`,
    ).run();
    db.prepare(
      `INSERT INTO runs (id, session_id, user_id, status, started_at) VALUES (7, 'alice~1', 'alice', 'ok', 1000)`,
    ).run();
    const insert = db.prepare(
      `INSERT INTO tasks (user_id, prompt, every_s, status, created_at, created_by_run) VALUES ('alice', ?, 3600, 'active', 1000, ?)`,
    );
    insert.run('from a run', 7);
    insert.run('run gone', 8);
    insert.run('no run', null);
    db.close();
    const store = openStore({ file });
    try {
      const tasks = await store.tasks.list('alice');
      expect(tasks.map((t) => [t.prompt, t.originSession])).toEqual([
        ['from a run', 'alice~1'],
        ['run gone', undefined],
        ['no run', undefined],
      ]);
      const session = await store.sessions.create('alice');
      const made = await store.tasks.create({
        userId: 'alice',
        prompt: 'new',
        every: 60,
        originSession: session.id,
      });
      await store.sessions.delete(session.id, 'alice');
      expect((await store.tasks.get(made.id, 'alice'))?.originSession).toBe(session.id);
      await expect(
        store.tasks.create({ userId: 'alice', prompt: 'bad', every: 60, originSession: '../x' }),
      ).rejects.toMatchObject({ code: 'invalid-id' });
    } finally {
      await store.close();
    }
  });
});

describe('revoked-tokens (v14)', () => {
  it('keeps the tokens of the release before live: listed, and their users active', async () => {
    const { file, db } = fileBefore('ADD COLUMN revoked_at');
    db.prepare(
      `INSERT INTO api_tokens (id, user_id, name, hash, created_at) VALUES ('tok_00000000000000aa', 'alice', NULL, ?, 1000)`,
    ).run('0'.repeat(64));
    db.close();
    const store = openStore({ file });
    try {
      expect((await store.tokens.list()).map((t) => t.id)).toEqual(['tok_00000000000000aa']);
      expect(await store.tokens.standing('alice')).toBe('active');
      expect(await store.tokens.revoke('tok_00000000000000aa')).toBe(true);
      expect(await store.tokens.standing('alice')).toBe('revoked');
    } finally {
      await store.close();
    }
  });
});

describe('turn-admissions (v15)', () => {
  it('keeps a file of the release before usable and admits over a sliding window', async () => {
    const { file, db } = fileBefore('CREATE TABLE admissions');
    db.prepare(
      `INSERT INTO api_tokens (id, user_id, name, hash, created_at) VALUES ('tok_00000000000000aa', 'alice', NULL, ?, 1000)`,
    ).run('0'.repeat(64));
    db.close();
    const store = openStore({ file });
    try {
      expect(await store.tokens.standing('alice')).toBe('active');
      const window = { limit: 1, windowMs: 60_000, now: new Date(5000) };
      expect(await store.admissions.admit('turns-per-minute:alice', window)).toMatchObject({
        admitted: true,
      });
      expect(await store.admissions.admit('turns-per-minute:alice', window)).toEqual({
        admitted: false,
        retryAt: new Date(65_000),
      });
    } finally {
      await store.close();
    }
  });
});
