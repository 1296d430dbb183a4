import type { BirdieCheckpointer } from './checkpointer/saver.js';
import { type Db, stateOf } from './db.js';
import { DoctorTally, type GrantsText } from './doctor-tally.js';
import type { DoctorReport } from './interface.js';
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

  const tally = new DoctorTally(advice);
  const ownerOf = db.prepare<[string], { user_id: string }>('SELECT user_id FROM sessions WHERE id = ?');
  for (const { thread_id } of readAll<{ thread_id: string }>(
    db,
    'SELECT DISTINCT thread_id FROM cp_threads ORDER BY thread_id',
    advice,
  )) {
    await tally.session(saver, thread_id, () => ownerOf.get(thread_id)?.user_id);
  }
  for (const row of readAll<GrantsText>(
    db,
    'SELECT session_id, enabled, disabled, sources FROM grants ORDER BY session_id',
    advice,
  )) {
    tally.grants(row);
  }

  // A malformed file already said so above, with what to do.
  if (state.readOnly && state.readOnly.reason !== 'malformed') {
    advice.push(`the store only reads: ${state.readOnly.message}; ${state.readOnly.hint}`);
  }
  return tally.report(file, integrity, integrityOk, state.readOnly);
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
