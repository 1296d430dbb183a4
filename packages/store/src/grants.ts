import { type Db, immediate, stateOf } from './db.js';
import type { GrantsRepo, SyncOf } from './interface.js';
import type { Ownership } from './owner.js';
import { checkGrants, decodeGrants, grantsDamage } from './validate.js';

export function createGrants(db: Db, owners: Ownership): SyncOf<GrantsRepo> {
  const select = db.prepare<[string], { enabled: string; disabled: string; sources: string | null }>(
    'SELECT enabled, disabled, sources FROM grants WHERE session_id = ?',
  );
  const upsert = db.prepare(
    `INSERT INTO grants (session_id, enabled, disabled, sources) VALUES (?, ?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET enabled = excluded.enabled, disabled = excluded.disabled,
       sources = excluded.sources`,
  );
  return {
    get(sessionId, userId) {
      owners.require(sessionId, userId);
      const row = select.get(sessionId);
      if (!row) return { enabled: [], disabled: [] };
      try {
        return decodeGrants(row.enabled, row.disabled, row.sources);
      } catch (cause) {
        const { file } = stateOf(db);
        throw grantsDamage(sessionId, file, cause, file);
      }
    },
    set(sessionId, userId, grants) {
      const { enabled, disabled, sources } = checkGrants(grants);
      const given = sources === undefined ? null : JSON.stringify(sources);
      immediate(db, () => {
        owners.require(sessionId, userId);
        upsert.run(sessionId, JSON.stringify(enabled), JSON.stringify(disabled), given);
      });
    },
  };
}
