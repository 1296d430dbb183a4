import type { RuntimeIo } from '@birdie/runtime/io';
import { userIdOf } from '@birdie/runtime/runtime';

/**
 * The flags that reach a session again, as a hint prints them: its id, and `--user` when it belongs to another user
 * than the one birdie takes without the flag (a session is looked up among its user's own; without `--user` the hint
 * would fail with "belongs to user …"). User ids are single shell words (`[A-Za-z0-9._@-]`).
 */
export function sessionFlags(io: RuntimeIo, userId: string, sessionId: string): string {
  const user = userId === userIdOf(io, {}) ? '' : `--user ${userId} `;
  return `${user}--session-id ${sessionId}`;
}
