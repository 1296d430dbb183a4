import { checkAdmission, checkAdmissionId } from './admissions-check.js';
import { type Db, immediate } from './db.js';
import type { AdmissionsRepo, SyncOf } from './interface.js';

export function createAdmissions(db: Db): SyncOf<AdmissionsRepo> {
  const expireKey = db.prepare<[string, number]>('DELETE FROM admissions WHERE key = ? AND expires_at <= ?');
  const expire = db.prepare<[number]>('DELETE FROM admissions WHERE expires_at <= ?');
  const live = db.prepare<[string, number], { n: number; first: number | null }>(
    'SELECT count(*) AS n, min(expires_at) AS first FROM admissions WHERE key = ? AND expires_at > ?',
  );
  const insert = db.prepare<[string, number]>('INSERT INTO admissions (key, expires_at) VALUES (?, ?)');
  const remove = db.prepare<[string, number]>('DELETE FROM admissions WHERE key = ? AND id = ?');
  return {
    admit(key, opts) {
      const a = checkAdmission(key, opts);
      // One write transaction: no other process admits between the count and the insert.
      const result = immediate(db, () => {
        expireKey.run(a.key, a.now);
        const { n, first } = live.get(a.key, a.now)!;
        if (n >= a.limit) return { admitted: false as const, retryAt: new Date(first!) };
        const id = Number(insert.run(a.key, a.now + a.windowMs).lastInsertRowid);
        return { admitted: true as const, id };
      });
      // Best effort, after the admission committed: other keys' rows past their window. A later admission clears what
      // this one could not.
      try {
        expire.run(a.now);
      } catch {
        // Left for the next admission.
      }
      return result;
    },
    withdraw(key, id) {
      const w = checkAdmissionId(key, id);
      immediate(db, () => remove.run(w.key, w.id));
    },
  };
}
