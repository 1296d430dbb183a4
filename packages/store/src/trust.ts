import { isAbsolute } from 'node:path';
import { checkKey } from './checks.js';
import { type Db, immediate } from './db.js';
import { StoreError } from './errors.js';
import type { SyncOf, TrustDecision, TrustRecord, TrustRepo } from './interface.js';

interface Row {
  dir: string;
  digest: string;
  decision: TrustDecision;
  at: number;
}

const DECISIONS = new Set<TrustDecision>(['trusted', 'refused']);

export function createTrust(db: Db): SyncOf<TrustRepo> {
  const select = db.prepare<[string], Row>('SELECT * FROM trust WHERE dir = ?');
  const all = db.prepare<[], Row>('SELECT * FROM trust ORDER BY dir');
  const upsert = db.prepare(
    `INSERT INTO trust (dir, digest, decision, at) VALUES (?, ?, ?, ?)
     ON CONFLICT (dir) DO UPDATE SET digest = excluded.digest, decision = excluded.decision, at = excluded.at`,
  );
  const remove = db.prepare('DELETE FROM trust WHERE dir = ?');
  return {
    get(dir) {
      const row = select.get(checkDir(dir));
      return row ? toRecord(row) : undefined;
    },
    set(dir, record) {
      const key = checkDir(dir);
      const digest = checkKey(record?.digest, 'digest', 512);
      if (!DECISIONS.has(record.decision)) {
        throw new StoreError('invalid-argument', "decision must be 'trusted' or 'refused'");
      }
      immediate(db, () => upsert.run(key, digest, record.decision, Date.now()));
    },
    list() {
      return all.all().map(toRecord);
    },
    revoke(dir) {
      const key = checkDir(dir);
      return immediate(db, () => remove.run(key)).changes > 0;
    },
  };
}

/** An absolute path without NUL; the caller passes a realpath, so the same folder is one key. */
function checkDir(dir: unknown): string {
  if (typeof dir !== 'string' || dir.includes('\0') || !isAbsolute(dir) || dir.length > 4096) {
    throw new StoreError('invalid-argument', 'a trusted folder is an absolute path without NUL bytes');
  }
  return dir;
}

function toRecord(row: Row): TrustRecord {
  return { dir: row.dir, digest: row.digest, decision: row.decision, at: new Date(row.at) };
}
