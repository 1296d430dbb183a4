import { type Db, immediate, stateOf } from './db.js';
import { StoreError } from './errors.js';
import type { Grants, GrantsRepo, SyncOf } from './interface.js';
import type { Ownership } from './owner.js';

const MAX_NAME = 200;
const MAX_SOURCE = 4096;

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
        const grants: Grants = {
          enabled: names(JSON.parse(row.enabled), 'enabled'),
          disabled: names(JSON.parse(row.disabled), 'disabled'),
        };
        if (row.sources !== null) grants.sources = sources(JSON.parse(row.sources));
        return grants;
      } catch (cause) {
        const { file } = stateOf(db);
        throw new StoreError(
          'corrupt-record',
          `the grants of session ${sessionId} in ${file} do not decode (${(cause as Error).message})`,
          {
            cause,
            file,
            damage: { sessionId, ns: '', table: 'grants', reason: (cause as Error).message },
            hint: 'set the grants again (enable the skills anew) to replace the record',
          },
        );
      }
    },
    set(sessionId, userId, grants) {
      const enabled = names(grants?.enabled, 'enabled');
      const disabled = names(grants?.disabled, 'disabled');
      const given = grants.sources === undefined ? null : JSON.stringify(sources(grants.sources));
      immediate(db, () => {
        owners.require(sessionId, userId);
        upsert.run(sessionId, JSON.stringify(enabled), JSON.stringify(disabled), given);
      });
    },
  };
}

function names(list: unknown, field: string): string[] {
  if (
    !Array.isArray(list) ||
    !list.every((n) => typeof n === 'string' && n.length > 0 && n.length <= MAX_NAME)
  ) {
    throw new StoreError('invalid-argument', `grants.${field} must be an array of non-empty strings`);
  }
  return [...new Set(list as string[])].sort();
}

/** A plain copy with own, string-valued entries only. */
function sources(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new StoreError('invalid-argument', 'grants.sources must be an object of skill name → string');
  }
  const out: Record<string, string> = {};
  for (const [name, source] of Object.entries(value)) {
    if (
      name.length === 0 ||
      name.length > MAX_NAME ||
      typeof source !== 'string' ||
      source.length > MAX_SOURCE
    ) {
      throw new StoreError(
        'invalid-argument',
        `grants.sources must map skill names to strings of at most ${MAX_SOURCE} characters`,
      );
    }
    Object.defineProperty(out, name, { value: source, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
