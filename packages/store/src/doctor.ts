import type { BirdieCheckpointer } from './checkpointer/saver.js';
import { type Db, stateOf } from './db.js';
import type { DamagedRecord } from './errors.js';
import type { DamagedSession, DoctorReport } from './interface.js';
import { clearMalformedMark, markMalformed } from './malformed-mark.js';
import { malformedState } from './sqlite-errors.js';

/**
 * Checks the whole store: SQLite's integrity check (pages, indexes), then every checkpoint record
 * and every session's grants decoded. A file SQLite finds malformed turns (and stays) read-only;
 * a file that was marked malformed and now checks out loses the mark, so the next open writes again.
 */
export async function runDoctor(db: Db, saver: BirdieCheckpointer): Promise<DoctorReport> {
  const state = stateOf(db);
  const { file } = state;
  const integrity = integrityCheck(db);
  const integrityOk = integrity.length === 1 && integrity[0] === 'ok';
  const advice: string[] = [];
  if (!integrityOk) {
    state.readOnly = malformedState(file, integrity[0] ?? 'integrity check failed');
    markMalformed(file, integrity[0] ?? 'integrity check failed');
    advice.push(
      `the file is damaged below the record level, so it is only read from now on: ${state.readOnly.hint}`,
    );
  } else if (state.readOnly?.reason === 'malformed') {
    clearMalformedMark(file);
    advice.push(
      'the file was marked malformed and now checks out: the mark is cleared; open the store again to write',
    );
  }

  const damaged: DamagedRecord[] = [];
  const sessions: DamagedSession[] = [];
  let checked = 0;
  const ownerOf = db.prepare<[string], { user_id: string }>('SELECT user_id FROM sessions WHERE id = ?');
  for (const { thread_id } of readAll<{ thread_id: string }>(
    db,
    'SELECT DISTINCT thread_id FROM cp_threads ORDER BY thread_id',
    advice,
  )) {
    let check: Awaited<ReturnType<BirdieCheckpointer['checkThread']>>;
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
    const userId = ownerOf.get(thread_id)?.user_id;
    if (userId !== undefined) entry.userId = userId;
    const good = check.lastGood.get('')?.checkpointId;
    if (good !== undefined) entry.lastGoodCheckpointId = good;
    sessions.push(entry);
    advice.push(
      `session ${thread_id}: ${check.damaged.length} damaged record(s); ${good ? `it reads fine up to step ${good}` : 'no step of it is intact'}. Repair it to continue from ${good ? 'there' : 'an empty history'} (the damaged records move to cp_quarantine, nothing is deleted), or delete it`,
    );
  }

  for (const row of readAll<{
    session_id: string;
    enabled: string;
    disabled: string;
    sources: string | null;
  }>(db, 'SELECT session_id, enabled, disabled, sources FROM grants ORDER BY session_id', advice)) {
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

  if (state.readOnly && state.readOnly.reason !== 'malformed') {
    advice.push(`the store only reads: ${state.readOnly.message}; ${state.readOnly.hint}`);
  }
  const ok = integrityOk && damaged.length === 0;
  if (ok && advice.length === 0) advice.push('nothing to do');
  const report: DoctorReport = { location: file, ok, integrity, checked, damaged, sessions, advice };
  if (state.readOnly) report.readOnly = state.readOnly;
  return report;
}

function integrityCheck(db: Db): string[] {
  try {
    return db
      .prepare<[], { integrity_check: string }>('PRAGMA integrity_check')
      .all()
      .map((r) => r.integrity_check);
  } catch (error) {
    return [(error as Error).message];
  }
}

/** A query that a malformed file may refuse: its failure becomes advice, not an exception. */
function readAll<T>(db: Db, sql: string, advice: string[]): T[] {
  try {
    return db.prepare<[], T>(sql).all();
  } catch (error) {
    advice.push(`cannot read the store's tables: ${(error as Error).message}`);
    return [];
  }
}
