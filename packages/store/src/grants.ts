import { type Db, retryBusy } from './db.js';
import { StoreError } from './errors.js';
import { validateSessionId } from './ids.js';

/** A session's skill grants, in the registry's serialisable policy shape. */
export interface Grants {
  enabled: string[];
  disabled: string[];
}

export interface GrantsRepo {
  /** The session's grants; both lists empty when none were set. */
  get(sessionId: string): Grants;
  set(sessionId: string, grants: Grants): void;
}

export function createGrants(db: Db): GrantsRepo {
  const select = db.prepare<[string], { enabled: string; disabled: string }>(
    'SELECT enabled, disabled FROM grants WHERE session_id = ?',
  );
  const exists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM sessions WHERE id = ?');
  const upsert = db.prepare(
    `INSERT INTO grants (session_id, enabled, disabled) VALUES (?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET enabled = excluded.enabled, disabled = excluded.disabled`,
  );
  return {
    get(sessionId) {
      validateSessionId(sessionId);
      const row = select.get(sessionId);
      if (!row) return { enabled: [], disabled: [] };
      return { enabled: JSON.parse(row.enabled) as string[], disabled: JSON.parse(row.disabled) as string[] };
    },
    set(sessionId, grants) {
      validateSessionId(sessionId);
      const enabled = names(grants?.enabled, 'enabled');
      const disabled = names(grants?.disabled, 'disabled');
      if (!exists.get(sessionId)) throw new StoreError('not-found', `no session ${sessionId}`);
      retryBusy(() => upsert.run(sessionId, JSON.stringify(enabled), JSON.stringify(disabled)));
    },
  };
}

function names(list: unknown, field: string): string[] {
  if (!Array.isArray(list) || !list.every((n) => typeof n === 'string' && n.length > 0 && n.length <= 200)) {
    throw new StoreError('invalid-argument', `grants.${field} must be an array of non-empty strings`);
  }
  return [...new Set(list as string[])].sort();
}
