import type { ServeIsolation } from './serve-isolation.js';
import type { ServeSetup } from './server-runtime.js';
import type { ServeLimits } from './settings.js';

// What an operator is told when a server starts on a runtime of `openServeRuntime`: where it keeps its data, how it
// confines users' tools and what to watch out for. Lines of text, for whatever log the front end writes.

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** The per-user turn limits of the settings, in words. */
export function limitsLine({ concurrent_turns, turns_per_minute }: ServeLimits): string {
  const parts = [
    ...(concurrent_turns !== undefined ? [`${concurrent_turns} concurrent turn(s)`] : []),
    ...(turns_per_minute !== undefined ? [`${turns_per_minute} turn(s) a minute`] : []),
  ];
  return parts.length ? `per user: ${parts.join(', ')}` : 'no per-user turn limits';
}

/** Where users' tools run. */
export function isolationLine(isolation: ServeIsolation, network: boolean): string {
  const { root, per = 'user' } = isolation.workspaces;
  const sandbox =
    isolation.shellTools.length === 0
      ? 'no shell or Python tools'
      : `shell and Python tools sandboxed (${isolation.sandboxVersion}), network ${network ? 'allowed' : 'off'}`;
  return `workspaces in ${root} (one per ${per}); ${sandbox}`;
}

/**
 * The start-up notes of a server listening on `host` (and a metrics listener on `metricsHost`): warnings about
 * listeners other machines reach, then the store, approval, limits and isolation, then a warning when workers on
 * other machines cannot see the workspaces.
 */
export function serveNotes(
  { rt, approval, isolation }: Pick<ServeSetup, 'rt' | 'approval' | 'isolation'>,
  listeners: { host: string; metricsHost?: string },
): string[] {
  const { metricsHost, host } = listeners;
  return [
    ...(metricsHost !== undefined && !LOOPBACK.has(metricsHost)
      ? [`the metrics listener on ${metricsHost} needs no token: keep it reachable by your scraper only`]
      : []),
    ...(LOOPBACK.has(host)
      ? []
      : [
          `listening on ${host}, not only this machine: anyone who reaches the port needs a token, but use TLS (a reverse proxy) between machines`,
        ]),
    `store ${rt.store.kind} ${rt.store.location}; approval ${approval}; ${limitsLine(rt.config.settings.serve.limits)}; tokens: birdie tokens create --user NAME`,
    isolationLine(isolation, rt.config.settings.serve.sandbox.network),
    ...(isolation.defaultRoot && rt.store.kind !== 'sqlite'
      ? [
          `the workspaces are in this worker's own folder (${isolation.workspaces.root}): workers on other machines will not see a session's files; give every worker one shared folder (--workspaces DIR or serve.workspaces)`,
        ]
      : []),
  ];
}
