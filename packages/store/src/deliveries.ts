import { type Db, immediate } from './db.js';
import { checkDeliveryClaim } from './deliveries-check.js';
import type { DeliveriesRepo, SyncOf } from './interface.js';

export function createDeliveries(db: Db): SyncOf<DeliveriesRepo> {
  const expire = db.prepare<[number]>('DELETE FROM deliveries WHERE expires_at <= ?');
  const taken = db.prepare<[string]>('SELECT 1 FROM deliveries WHERE key = ?').pluck();
  const insert = db.prepare<[string, number]>('INSERT INTO deliveries (key, expires_at) VALUES (?, ?)');
  return {
    claim(keys, ttlMs) {
      const claim = checkDeliveryClaim(keys, ttlMs);
      const now = Date.now();
      // One write transaction: no other process claims between the look and the insert.
      return immediate(db, () => {
        expire.run(now);
        if (claim.keys.some((key) => taken.get(key) !== undefined)) return false;
        for (const key of claim.keys) insert.run(key, now + claim.ttlMs);
        return true;
      });
    },
  };
}
