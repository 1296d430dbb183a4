import type { ThreadCheck } from './checkpointer/thread-check.js';
import type { DamagedRecord } from './errors.js';
import type { DamagedSession, DoctorReport } from './interface.js';

// What `doctor` makes of the records it checks, whatever the back end: each back end checks its own storage
// (SQLite's integrity check, the server's migrations) and feeds every session and grants row to a tally.

/** A `grants` row as stored: JSON texts. */
export interface GrantsText {
  session_id: string;
  enabled: string;
  disabled: string;
  sources: string | null;
}

export class DoctorTally {
  readonly damaged: DamagedRecord[] = [];
  readonly sessions: DamagedSession[] = [];
  checked = 0;

  constructor(readonly advice: string[]) {}

  /** Checks session `threadId`'s records; `userOf` names its owner, asked only when it is damaged. */
  async session(
    saver: { checkThread(threadId: string): Promise<ThreadCheck> },
    threadId: string,
    userOf: () => string | undefined,
  ): Promise<void> {
    let check: ThreadCheck;
    try {
      check = await saver.checkThread(threadId);
    } catch (error) {
      this.advice.push(`session ${threadId} could not be checked: ${(error as Error).message}`);
      return;
    }
    this.checked += check.checked;
    if (check.damaged.length === 0 && check.tainted.size === 0) return;
    this.damaged.push(...check.damaged);
    const entry: DamagedSession = {
      sessionId: threadId,
      damaged: check.damaged.length,
      unreadableSteps: check.tainted.size,
    };
    const userId = userOf();
    if (userId !== undefined) entry.userId = userId;
    const good = check.lastGood.get('')?.checkpointId;
    if (good !== undefined) entry.lastGoodCheckpointId = good;
    this.sessions.push(entry);
    this.advice.push(
      `session ${threadId}: ${check.damaged.length} damaged record(s); ${good ? `it reads fine up to step ${good}` : 'no step of it is intact'}. Repair it to continue from ${good ? 'there' : 'an empty history'} (the damaged records move to cp_quarantine, nothing is deleted), or delete it`,
    );
  }

  /** Decodes one session's skill grants. */
  grants(row: GrantsText): void {
    this.checked += 1;
    try {
      for (const text of [row.enabled, row.disabled, row.sources ?? 'null']) JSON.parse(text);
    } catch (error) {
      this.damaged.push({
        sessionId: row.session_id,
        ns: '',
        table: 'grants',
        reason: (error as Error).message,
      });
      this.advice.push(
        `session ${row.session_id}: its skill grants do not decode; set them again (enable the skills anew)`,
      );
    }
  }

  /** The report, once every session and grants row went through. */
  report(
    location: string,
    integrity: string[],
    integrityOk: boolean,
    readOnly: DoctorReport['readOnly'],
  ): DoctorReport {
    const { damaged, sessions, checked, advice } = this;
    const ok = integrityOk && damaged.length === 0;
    if (ok && advice.length === 0) advice.push('nothing to do');
    const report: DoctorReport = { location, ok, integrity, checked, damaged, sessions, advice };
    if (readOnly) report.readOnly = readOnly;
    return report;
  }
}
