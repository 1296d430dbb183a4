import { type Db, immediate } from './db.js';
import { checkDeliveryClaim, checkDeliveryKeys } from './deliveries-check.js';
import type { DeliveriesRepo, SyncOf } from './interface.js';

export function createDeliveries(db: Db): SyncOf<DeliveriesRepo> {
  const expireKey = db.prepare<[string, number]>('DELETE FROM deliveries WHERE key = ? AND expires_at <= ?');
  const expire = db.prepare<[number]>('DELETE FROM deliveries WHERE expires_at <= ?');
  const taken = db.prepare<[string]>('SELECT 1 FROM deliveries WHERE key = ?').pluck();
  const insert = db.prepare<[string, number]>('INSERT INTO deliveries (key, expires_at) VALUES (?, ?)');
  const remove = db.prepare<[string]>('DELETE FROM deliveries WHERE key = ?');
  return {
    claim(keys, ttlMs) {
      const claim = checkDeliveryClaim(keys, ttlMs);
      const now = Date.now();
      // One write transaction: no other process claims between the look and the insert. An expired claim of one of
      // these keys is taken over.
      const won = immediate(db, () => {
        for (const key of claim.keys) expireKey.run(key, now);
        if (claim.keys.some((key) => taken.get(key) !== undefined)) return false;
        for (const key of claim.keys) insert.run(key, now + claim.ttlMs);
        return true;
      });
      // Best effort, after the claim committed: failing a recorded claim would drop the message and, as its keys
      // stay recorded, every redelivery of it too. A later claim clears what this one could not.
      try {
        expire.run(now);
      } catch {
        // Left for the next claim.
      }
      return won;
    },
    release(keys) {
      const checked = checkDeliveryKeys(keys);
      immediate(db, () => {
        for (const key of checked) remove.run(key);
      });
    },
  };
}
