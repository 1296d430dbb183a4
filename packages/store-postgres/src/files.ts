import {
  checkedContent,
  checkFileChanges,
  checkFilePath,
  checkFileTotals,
  type SessionFileRow,
  type SessionFilesRepo,
  toSessionFile,
} from '@birdie/store/backend';
import type { Db } from './db.js';
import type { PgLeases } from './leases.js';
import { requireOwner } from './owner.js';

/** A session's data folder as rows of `session_files`; writes are fenced by the session's lease. */
export function createFiles(db: Db, leases: PgLeases): SessionFilesRepo {
  return {
    async list(sessionId, userId) {
      await requireOwner(db, sessionId, userId);
      const { rows } = await db.query<SessionFileRow>(
        'SELECT path, size, sha256, updated_at FROM session_files WHERE session_id = $1 ORDER BY path',
        [sessionId],
      );
      return rows.map(toSessionFile);
    },
    async read(sessionId, userId, path) {
      const checked = checkFilePath(path);
      await requireOwner(db, sessionId, userId);
      const { rows } = await db.query<{ content: Buffer; sha256: string }>(
        'SELECT content, sha256 FROM session_files WHERE session_id = $1 AND path = $2',
        [sessionId, checked],
      );
      const row = rows[0];
      if (!row) return undefined;
      return checkedContent(sessionId, checked, row.content, row.sha256, db.state.location);
    },
    async apply(sessionId, userId, changes) {
      const checked = checkFileChanges(changes);
      if (checked.put.length === 0 && checked.remove.length === 0) {
        await requireOwner(db, sessionId, userId);
        return;
      }
      await db.tx(async (client) => {
        await requireOwner(client, sessionId, userId);
        await leases.fence(client, sessionId);
        const { rows } = await client.query<{ path: string; size: number }>(
          'SELECT path, size FROM session_files WHERE session_id = $1 FOR UPDATE',
          [sessionId],
        );
        checkFileTotals(sessionId, new Map(rows.map((r) => [r.path, r.size])), checked);
        const now = Date.now();
        if (checked.remove.length > 0) {
          await client.query('DELETE FROM session_files WHERE session_id = $1 AND path = ANY($2::text[])', [
            sessionId,
            checked.remove,
          ]);
        }
        for (const p of checked.put) {
          await client.query(
            `INSERT INTO session_files (session_id, path, size, sha256, content, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (session_id, path) DO UPDATE SET size = excluded.size, sha256 = excluded.sha256,
               content = excluded.content, updated_at = excluded.updated_at`,
            [sessionId, p.path, p.content.byteLength, p.sha256, p.content, now],
          );
        }
      });
    },
  };
}
