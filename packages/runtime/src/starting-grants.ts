import type { SessionGrants } from '@birdie/registry';
import type { Session } from '@birdie/store';

/**
 * The grants each session made in this process started with (the `skills.enable` / `skills.disable` settings and the
 * flags over them), so a session left empty can tell them from grants the user gave it. Keyed by the session object a
 * front end holds, so nothing outlives it.
 */
const started = new WeakMap<Session, string>();

const grantsKey = (grants: SessionGrants): string =>
  JSON.stringify([[...grants.enabled].sort(), [...grants.disabled].sort()]);

export function rememberStartingGrants(session: Session, grants: SessionGrants): void {
  started.set(session, grantsKey(grants));
}

/**
 * Whether the session's grants are the user's own: any grants of a session not made here (resumed), or grants that
 * differ from the ones it started with.
 */
export function grantsGivenByUser(session: Session, grants: SessionGrants): boolean {
  if (grants.enabled.length === 0 && grants.disabled.length === 0) return false;
  const atStart = started.get(session);
  return atStart === undefined || atStart !== grantsKey(grants);
}
