import { describe, expect, inject, it } from 'vitest';
import { MIGRATIONS, openPostgresStore } from '../src/index.js';
import { schemaAtMigration, useAdminClient } from './old-database.js';

// Migration `per-user-numbers` on a database written before it: the sessions numbered across the store keep their
// ids (their threads, rows and URLs stay valid), new plain ids go on after them, and each user's own count from 1.
const schema = `oldnumbers_${process.pid}`;
const url = inject('postgresUrl');
const admin = useAdminClient();

describe('migration per-user-numbers', () => {
  it('keeps every session and what refers to it, and numbers new ones per scope', async () => {
    const before = MIGRATIONS.findIndex((m) => m.name === 'per-user-numbers');
    await schemaAtMigration(admin.client, schema, before);
    const session = `INSERT INTO sessions (id, user_id, day, seq, title, created_at, updated_at)
      VALUES ($1, $2, '2026-11-29', $3, $4, 1000, 1000)`;
    await admin.client.query(session, ['2026-11-29_1', 'alice', 1, 'first']);
    await admin.client.query(session, ['2026-11-29_2', 'bob', 2, null]);
    await admin.client.query(
      `INSERT INTO grants (session_id, enabled, disabled) VALUES ('2026-11-29_2', '["web"]', '[]')`,
    );
    await admin.client.query(
      `INSERT INTO runs (session_id, user_id, thread_id, status, started_at) VALUES ('2026-11-29_2', 'bob', '2026-11-29_2', 'ok', 1000)`,
    );
    const store = await openPostgresStore({ url, schema });
    try {
      expect((await store.migrationStatus()).current).toBe(MIGRATIONS.length);
      expect(await store.sessions.get('2026-11-29_1', 'alice')).toMatchObject({
        id: '2026-11-29_1',
        title: 'first',
      });
      expect((await store.grants.get('2026-11-29_2', 'bob')).enabled).toEqual(['web']);
      expect(await store.runs.list({ userId: 'bob' })).toMatchObject([{ sessionId: '2026-11-29_2' }]);
      const now = new Date(2026, 10, 29, 12);
      expect((await store.sessions.create('alice', { now })).id).toBe('2026-11-29_3');
      expect((await store.sessions.create('bob', { now, perUser: true })).id).toBe('bob~2026-11-29_1');
      expect((await store.sessions.create('alice', { now, perUser: true })).id).toBe('alice~2026-11-29_1');
      // The number is unique per scope and day: a second row of bob's number 1 is refused by the database itself.
      await expect(
        admin.client.query(
          `INSERT INTO sessions (id, user_id, scope, day, seq, created_at, updated_at)
           VALUES ('x', 'bob', 'bob', '2026-11-29', 1, 1, 1)`,
        ),
      ).rejects.toThrow(/sessions_scope_day_seq_key/);
    } finally {
      await store.close();
    }
  });
});
