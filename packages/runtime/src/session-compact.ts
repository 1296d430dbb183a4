import type { CompactionResult } from '@birdie/graph';
import type { Runtime } from './runtime.js';
import { acquireSessionLease } from './session-lease.js';

export interface CompactSessionOptions {
  /** How long to wait for the session when another process is using it, ms (as a turn waits). */
  waitMs: number;
  /** What the summary should keep (`/compact INSTRUCTIONS`). */
  instructions?: string;
  /** The model that writes the summary (a tier or `vendor:model`); default: the agent's. */
  model?: string;
}

/**
 * Summarises all but the last exchange of a session now (the summarised part is archived, never lost), under the
 * session's lease as a turn holds it, so no turn of another process writes the thread meanwhile. `undefined`: nothing
 * to compact yet (one exchange or less); `applied: false`: a summary would not have made the conversation smaller, so
 * none was recorded. A busy session fails with `RuntimeError` `busy` after `waitMs`.
 */
export async function compactSession(
  rt: Pick<Runtime, 'store' | 'agent'>,
  sessionId: string,
  options: CompactSessionOptions,
): Promise<CompactionResult | undefined> {
  const lease = await acquireSessionLease(rt.store, sessionId, { waitMs: options.waitMs });
  try {
    return await rt.agent.compact(sessionId, {
      ...(options.instructions ? { instructions: options.instructions } : {}),
      ...(options.model ? { model: options.model } : {}),
    });
  } finally {
    await lease.release();
  }
}
