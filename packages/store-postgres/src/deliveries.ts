import { checkDeliveryClaim, type DeliveriesRepo } from '@birdie/store/backend';
import type { Db } from './db.js';

/** Thrown inside the claim's transaction to roll back the keys it did insert when another claim holds one. */
class Taken extends Error {}

export function createDeliveries(db: Db): DeliveriesRepo {
  return {
    async claim(keys, ttlMs) {
      const claim = checkDeliveryClaim(keys, ttlMs);
      const now = Date.now();
      try {
        await db.tx(async (client) => {
          // An expired claim of one of these keys is taken over; a live one (or one committed meanwhile) is not.
          await client.query('DELETE FROM deliveries WHERE key = ANY($1::text[]) AND expires_at <= $2', [
            claim.keys,
            now,
          ]);
          const { rowCount } = await client.query(
            `INSERT INTO deliveries (key, expires_at) SELECT k, $2 FROM unnest($1::text[]) AS k
             ON CONFLICT (key) DO NOTHING`,
            [claim.keys, now + claim.ttlMs],
          );
          if ((rowCount ?? 0) < claim.keys.length) throw new Taken();
        });
      } catch (error) {
        if (error instanceof Taken) return false;
        throw error;
      }
      // Outside the claim's transaction: several workers clearing old rows never wait on each other's claims.
      await db.query('DELETE FROM deliveries WHERE expires_at <= $1', [now]);
      return true;
    },
  };
}
