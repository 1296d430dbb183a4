import { type AdmissionsRepo, checkAdmission, checkAdmissionId } from '@birdie/store/backend';
import type { Db } from './db.js';

export function createAdmissions(db: Db): AdmissionsRepo {
  return {
    async admit(key, opts) {
      const a = checkAdmission(key, opts);
      // The window is the caller's clock (`now`), as the run log's start times are: one clock for both counts.
      const result = await db.tx(async (client) => {
        // Count and insert under one lock per key: admissions racing for the last places are taken one at a time.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
          `birdie-admit:${db.schema}:${a.key}`,
        ]);
        await client.query('DELETE FROM admissions WHERE key = $1 AND expires_at <= $2', [a.key, a.now]);
        const { rows } = await client.query<{ n: string; first: string | null }>(
          'SELECT count(*) AS n, min(expires_at) AS first FROM admissions WHERE key = $1 AND expires_at > $2',
          [a.key, a.now],
        );
        if (Number(rows[0]!.n) >= a.limit)
          return { admitted: false as const, retryAt: new Date(Number(rows[0]!.first)) };
        const inserted = await client.query<{ id: string }>(
          'INSERT INTO admissions (key, expires_at) VALUES ($1, $2) RETURNING id',
          [a.key, a.now + a.windowMs],
        );
        return { admitted: true as const, id: Number(inserted.rows[0]!.id) };
      });
      // Outside the admission's transaction, best effort: other keys' rows past their window. A later admission clears
      // what this one could not.
      await db.query('DELETE FROM admissions WHERE expires_at <= $1', [a.now]).catch(() => undefined);
      return result;
    },
    async withdraw(key, id) {
      const w = checkAdmissionId(key, id);
      await db.query('DELETE FROM admissions WHERE key = $1 AND id = $2', [w.key, w.id]);
    },
  };
}
