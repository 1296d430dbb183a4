import {
  checkDir,
  checkGrants,
  checkMemoryContent,
  checkTrust,
  decodeGrants,
  type GrantsRepo,
  grantsDamage,
  type MemoryRepo,
  type MemoryRow,
  type TrustRepo,
  type TrustRow,
  toEntry,
  toTrustRecord,
  validateUserId,
} from '@birdie/store/backend';
import type { Db } from './db.js';
import { requireOwner } from './owner.js';

export function createGrants(db: Db): GrantsRepo {
  return {
    async get(sessionId, userId) {
      await requireOwner(db, sessionId, userId);
      const { rows } = await db.query<{ enabled: string; disabled: string; sources: string | null }>(
        'SELECT enabled, disabled, sources FROM grants WHERE session_id = $1',
        [sessionId],
      );
      const row = rows[0];
      if (!row) return { enabled: [], disabled: [] };
      try {
        return decodeGrants(row.enabled, row.disabled, row.sources);
      } catch (cause) {
        throw grantsDamage(sessionId, db.state.location, cause);
      }
    },
    async set(sessionId, userId, grants) {
      const { enabled, disabled, sources } = checkGrants(grants);
      await db.tx(async (client) => {
        await requireOwner(client, sessionId, userId);
        await client.query(
          `INSERT INTO grants (session_id, enabled, disabled, sources) VALUES ($1, $2, $3, $4)
           ON CONFLICT (session_id) DO UPDATE SET enabled = excluded.enabled, disabled = excluded.disabled,
             sources = excluded.sources`,
          [
            sessionId,
            JSON.stringify(enabled),
            JSON.stringify(disabled),
            sources === undefined ? null : JSON.stringify(sources),
          ],
        );
      });
    },
  };
}

export function createMemory(db: Db): MemoryRepo {
  return {
    async add(userId, content) {
      validateUserId(userId);
      checkMemoryContent(content);
      const { rows } = await db.query<MemoryRow>(
        'INSERT INTO memory (user_id, content, created_at) VALUES ($1, $2, $3) RETURNING *',
        [userId, content, Date.now()],
      );
      return toEntry(rows[0]!);
    },
    async list(userId) {
      validateUserId(userId);
      const { rows } = await db.query<MemoryRow>('SELECT * FROM memory WHERE user_id = $1 ORDER BY id', [
        userId,
      ]);
      return rows.map(toEntry);
    },
    async remove(userId, id) {
      validateUserId(userId);
      if (!Number.isSafeInteger(id)) return false;
      const { rowCount } = await db.query('DELETE FROM memory WHERE user_id = $1 AND id = $2', [userId, id]);
      return (rowCount ?? 0) > 0;
    },
  };
}

export function createTrust(db: Db): TrustRepo {
  return {
    async get(dir) {
      const { rows } = await db.query<TrustRow>('SELECT * FROM trust WHERE dir = $1', [checkDir(dir)]);
      return rows[0] ? toTrustRecord(rows[0]) : undefined;
    },
    async set(dir, record) {
      const key = checkDir(dir);
      const { digest, decision } = checkTrust(record);
      await db.query(
        `INSERT INTO trust (dir, digest, decision, at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (dir) DO UPDATE SET digest = excluded.digest, decision = excluded.decision, at = excluded.at`,
        [key, digest, decision, Date.now()],
      );
    },
    async list() {
      const { rows } = await db.query<TrustRow>('SELECT * FROM trust ORDER BY dir');
      return rows.map(toTrustRecord);
    },
    async revoke(dir) {
      const { rowCount } = await db.query('DELETE FROM trust WHERE dir = $1', [checkDir(dir)]);
      return (rowCount ?? 0) > 0;
    },
  };
}
