import { checkDeliveryClaim, checkDeliveryKeys, type DeliveriesRepo } from '@birdie/store/backend';
import { type Db, NOW_MS } from './db.js';

/** Thrown inside the claim's transaction to roll back the keys it did insert when another claim holds one. */
class Taken extends Error {}

export function createDeliveries(db: Db): DeliveriesRepo {
  return {
    async claim(keys, ttlMs) {
      const claim = checkDeliveryClaim(keys, ttlMs);
      try {
        // Claims expire by the database's clock, as leases do: the workers' clocks need not agree.
        await db.tx(async (client) => {
          // An expired claim of one of these keys is taken over; a live one (or one committed meanwhile) is not.
          await client.query(
            `DELETE FROM deliveries WHERE key = ANY($1::text[]) AND expires_at <= ${NOW_MS}`,
            [claim.keys],
          );
          const { rowCount } = await client.query(
            `INSERT INTO deliveries (key, expires_at) SELECT k, ${NOW_MS} + $2 FROM unnest($1::text[]) AS k
             ON CONFLICT (key) DO NOTHING`,
            [claim.keys, claim.ttlMs],
          );
          if ((rowCount ?? 0) < claim.keys.length) throw new Taken();
        });
      } catch (error) {
        if (error instanceof Taken) return false;
        throw error;
      }
      // Outside the claim's transaction: several workers clearing old rows never wait on each other's claims. Best
      // effort: failing a committed claim would drop the message and, as its keys stay recorded, every redelivery of
      // it too. A later claim clears what this one could not.
      await db.query(`DELETE FROM deliveries WHERE expires_at <= ${NOW_MS}`).catch(() => undefined);
      return true;
    },
    async release(keys) {
      await db.query('DELETE FROM deliveries WHERE key = ANY($1::text[])', [checkDeliveryKeys(keys)]);
    },
  };
}
