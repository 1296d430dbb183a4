import type { Session } from '@birdie/store';
import { type Runtime, staleGrantNotes } from './runtime.js';
import { discardIfEmpty } from './session-titles.js';

/**
 * Makes `to` the session a front end goes on with after `from` (`/new`, `/session switch`): the policy reads `to`'s
 * grants from the store (its tools approved for the session are in its thread), and `from` is not kept when it has no
 * exchange (an empty `/new`, a failed first call). Returns the notes to show about `to`'s grants (stale ones).
 */
export async function switchSession(rt: Runtime, from: Session, to: Session): Promise<string[]> {
  if (to.id !== from.id) {
    // The MCP resources `from` attached are no longer followed (`resources/unsubscribe`).
    await (await rt.agent.mcpSession(from.id, { connect: false })).close();
    await discardIfEmpty(rt, from);
  }
  await rt.loadGrants(to.id);
  return staleGrantNotes(rt, to.id);
}
