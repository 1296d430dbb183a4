import { checkKey } from './checks.js';
import { type Db, immediate } from './db.js';
import { StoreError } from './errors.js';
import { validateLeaseKey } from './ids.js';
import type { SyncOf, TriggersRepo } from './interface.js';
import type { Leases } from './leases.js';

/** A due time as stored: ms since the epoch, checked. */
export function checkDue(at: unknown, field = 'dueAt'): number {
  if (!(at instanceof Date) || Number.isNaN(at.getTime()))
    throw new StoreError('invalid-argument', `${field} must be a valid Date`);
  return at.getTime();
}

/**
 * The scheduler's claims: one row per trigger with the newest due time claimed. A claim is a compare-and-set inside
 * a write transaction that also checks the caller still holds the trigger's lease, so two processes never both
 * claim one due time, and a process that lost its lease cannot claim at all.
 */
export function createTriggers(db: Db, leases: Leases): SyncOf<TriggersRepo> {
  const select = db.prepare<[string], { last_due: number }>(
    'SELECT last_due FROM trigger_state WHERE key = ?',
  );
  const armRow = db.prepare(
    'INSERT INTO trigger_state (key, last_due, claimed_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING',
  );
  const claimRow = db.prepare(
    `INSERT INTO trigger_state (key, last_due, claimed_at, owner) VALUES (?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET last_due = excluded.last_due, claimed_at = excluded.claimed_at,
       owner = excluded.owner
     WHERE trigger_state.last_due < excluded.last_due`,
  );
  return {
    last(key) {
      const row = select.get(checkKey(key, 'key'));
      return row ? new Date(row.last_due) : undefined;
    },
    arm(key, at) {
      const k = checkKey(key, 'key');
      const due = checkDue(at, 'at');
      return immediate(db, () => {
        armRow.run(k, due, Date.now());
        return new Date(select.get(k)!.last_due);
      });
    },
    claim(key, dueAt, lease) {
      const k = checkKey(key, 'key');
      const due = checkDue(dueAt);
      validateLeaseKey(lease);
      return immediate(db, () => {
        leases.requireHeld(lease);
        return claimRow.run(k, due, Date.now(), leases.owner).changes > 0;
      });
    },
  };
}
