import { type Db, immediate } from './db.js';
import type { SyncOf, TrustDecision, TrustRecord, TrustRepo } from './interface.js';
import { checkDir, checkTrust } from './validate.js';

export interface TrustRow {
  dir: string;
  digest: string;
  decision: TrustDecision;
  at: number;
}

export function createTrust(db: Db): SyncOf<TrustRepo> {
  const select = db.prepare<[string], TrustRow>('SELECT * FROM trust WHERE dir = ?');
  const all = db.prepare<[], TrustRow>('SELECT * FROM trust ORDER BY dir');
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
      const { digest, decision } = checkTrust(record);
      immediate(db, () => upsert.run(key, digest, decision, Date.now()));
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

export function toRecord(row: TrustRow): TrustRecord {
  return { dir: row.dir, digest: row.digest, decision: row.decision, at: new Date(row.at) };
}
