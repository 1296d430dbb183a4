import type { DamagedRecord, DamagedSession, DoctorReport } from '@birdie/store/backend';
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

  const damaged: DamagedRecord[] = [];
  const sessions: DamagedSession[] = [];
  let checked = 0;
  const { rows: threads } = await db.query<{ thread_id: string; user_id: string | null }>(
    `SELECT DISTINCT t.thread_id, s.user_id FROM cp_threads t LEFT JOIN sessions s ON s.id = t.thread_id
     ORDER BY t.thread_id`,
  );
  for (const { thread_id, user_id } of threads) {
    let check: Awaited<ReturnType<PostgresCheckpointer['checkThread']>>;
    try {
      check = await saver.checkThread(thread_id);
    } catch (error) {
      advice.push(`session ${thread_id} could not be checked: ${(error as Error).message}`);
      continue;
    }
    checked += check.checked;
    if (check.damaged.length === 0 && check.tainted.size === 0) continue;
    damaged.push(...check.damaged);
    const entry: DamagedSession = {
      sessionId: thread_id,
      damaged: check.damaged.length,
      unreadableSteps: check.tainted.size,
    };
    if (user_id !== null) entry.userId = user_id;
    const good = check.lastGood.get('')?.checkpointId;
    if (good !== undefined) entry.lastGoodCheckpointId = good;
    sessions.push(entry);
    advice.push(
      `session ${thread_id}: ${check.damaged.length} damaged record(s); ${good ? `it reads fine up to step ${good}` : 'no step of it is intact'}. Repair it to continue from ${good ? 'there' : 'an empty history'} (the damaged records move to cp_quarantine, nothing is deleted), or delete it`,
    );
  }

  const { rows: grants } = await db.query<{
    session_id: string;
    enabled: string;
    disabled: string;
    sources: string | null;
  }>('SELECT session_id, enabled, disabled, sources FROM grants ORDER BY session_id');
  for (const row of grants) {
    checked += 1;
    try {
      for (const text of [row.enabled, row.disabled, row.sources ?? 'null']) JSON.parse(text);
    } catch (error) {
      damaged.push({ sessionId: row.session_id, ns: '', table: 'grants', reason: (error as Error).message });
      advice.push(
        `session ${row.session_id}: its skill grants do not decode; set them again (enable the skills anew)`,
      );
    }
  }

  if (db.state.readOnly)
    advice.push(`the store only reads: ${db.state.readOnly.message}; ${db.state.readOnly.hint}`);
  const ok = integrityOk && damaged.length === 0;
  if (ok && advice.length === 0) advice.push('nothing to do');
  const report: DoctorReport = {
    location: db.state.location,
    ok,
    integrity,
    checked,
    damaged,
    sessions,
    advice,
  };
  if (db.state.readOnly) report.readOnly = db.state.readOnly;
  return report;
}
