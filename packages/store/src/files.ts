import { type Db, immediate, stateOf } from './db.js';
import type { SessionFilesRepo, SyncOf } from './interface.js';
import type { Leases } from './leases.js';
import type { Ownership } from './owner.js';
import {
  checkedContent,
  checkFileChanges,
  checkFilePath,
  checkFileTotals,
  type SessionFileRow,
  toSessionFile,
} from './session-files-check.js';

/** A session's data folder as rows of `session_files`; writes are fenced by the session's lease. */
export function createFiles(db: Db, owners: Ownership, leases: Leases): SyncOf<SessionFilesRepo> {
  const list = db.prepare<[string], SessionFileRow>(
    'SELECT path, size, sha256, updated_at FROM session_files WHERE session_id = ? ORDER BY path',
  );
  const one = db.prepare<[string, string], { content: Buffer; sha256: string }>(
    'SELECT content, sha256 FROM session_files WHERE session_id = ? AND path = ?',
  );
  const sizes = db.prepare<[string], { path: string; size: number }>(
    'SELECT path, size FROM session_files WHERE session_id = ?',
  );
  const upsert = db.prepare(
    `INSERT INTO session_files (session_id, path, size, sha256, content, updated_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (session_id, path) DO UPDATE SET size = excluded.size, sha256 = excluded.sha256,
       content = excluded.content, updated_at = excluded.updated_at`,
  );
  const remove = db.prepare('DELETE FROM session_files WHERE session_id = ? AND path = ?');
  return {
    list(sessionId, userId) {
      owners.require(sessionId, userId);
      return list.all(sessionId).map(toSessionFile);
    },
    read(sessionId, userId, path) {
      const checked = checkFilePath(path);
      owners.require(sessionId, userId);
      const row = one.get(sessionId, checked);
      if (!row) return undefined;
      return checkedContent(sessionId, checked, row.content, row.sha256, stateOf(db).file);
    },
    apply(sessionId, userId, changes) {
      const checked = checkFileChanges(changes);
      if (checked.put.length === 0 && checked.remove.length === 0) {
        owners.require(sessionId, userId);
        return;
      }
      immediate(db, () => {
        owners.require(sessionId, userId);
        leases.fence(sessionId);
        const existing = new Map(sizes.all(sessionId).map((r) => [r.path, r.size]));
        checkFileTotals(sessionId, existing, checked);
        const now = Date.now();
        for (const path of checked.remove) remove.run(sessionId, path);
        for (const p of checked.put)
          upsert.run(sessionId, p.path, p.content.byteLength, p.sha256, p.content, now);
      });
    },
  };
}
