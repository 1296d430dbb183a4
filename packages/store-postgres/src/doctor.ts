import { type DoctorReport, DoctorTally, type GrantsText } from '@birdie/store/backend';
import type { PostgresCheckpointer } from './checkpointer/saver.js';
import type { Db } from './db.js';
import { migrationStatus } from './migrations.js';

/**
 * Checks the whole store: the server's own side first (reachable, every migration applied, not read-only), then
 * every checkpoint record and every session's grants decoded — the SQLite store's record checks, unchanged.
 * PostgreSQL keeps its pages consistent itself (and reports damaged ones as XX001/XX002, mapped to `malformed`).
 */
export async function runDoctor(db: Db, saver: PostgresCheckpointer): Promise<DoctorReport> {
  const advice: string[] = [];
  const integrity: string[] = [];
  const status = await migrationStatus(db);
  if (status.pending.length > 0) {
    integrity.push(`schema ${status.schema} lacks migrations: ${status.pending.join(', ')}`);
    advice.push('run the migrations (open the store once with this birdie, or `birdie db migrate`)');
  }
  if (status.current > status.latest) {
    integrity.push(
      `schema ${status.schema} is at version ${status.current}, newer than this birdie (${status.latest})`,
    );
    advice.push('upgrade birdie on this machine');
  }
  const { rows: recovery } = await db.query<{ standby: boolean; readonly: string }>(
    "SELECT pg_is_in_recovery() AS standby, current_setting('default_transaction_read_only') AS readonly",
  );
  if (recovery[0]?.standby || recovery[0]?.readonly === 'on') {
    db.state.readOnly ??= {
      reason: 'read-only-server',
      message: 'the server only accepts reads (a standby, or default_transaction_read_only)',
      hint: 'point the URL at the primary server, or ask its administrator why it is read-only',
    };
  }
  if (integrity.length === 0) integrity.push('ok');
  const integrityOk = integrity[0] === 'ok';

  const tally = new DoctorTally(advice);
  const { rows: threads } = await db.query<{ thread_id: string; user_id: string | null }>(
    `SELECT DISTINCT t.thread_id, s.user_id FROM cp_threads t LEFT JOIN sessions s ON s.id = t.thread_id
     ORDER BY t.thread_id`,
  );
  for (const { thread_id, user_id } of threads) {
    await tally.session(saver, thread_id, () => user_id ?? undefined);
  }
  const { rows: grants } = await db.query<GrantsText>(
    'SELECT session_id, enabled, disabled, sources FROM grants ORDER BY session_id',
  );
  for (const row of grants) tally.grants(row);

  if (db.state.readOnly)
    advice.push(`the store only reads: ${db.state.readOnly.message}; ${db.state.readOnly.hint}`);
  return tally.report(db.state.location, integrity, integrityOk, db.state.readOnly);
}
