import type { Flags } from './flags.js';
import type { LoggedCall, RunFilters } from './run-log.js';

const FILTERS = ['session', 'agent', 'status', 'since'] as const;

/** The run-log filters a front end's flags give (`session`, `agent`, `status`, `since`), only those given. */
export function runFilterFlags(flags: Flags): RunFilters {
  return Object.fromEntries(
    FILTERS.filter((name) => typeof flags[name] === 'string').map((name) => [name, flags[name]]),
  );
}

/**
 * A run's tool calls on one line, a subagent's calls in parentheses after its `task` call:
 * `read_file web_search✗ task(web_search run_bash?)`. ✗ failed; ? started but never reported back (the run died),
 * so it may have had its effect.
 */
export function toolCallsText(calls: readonly LoggedCall[]): string {
  return calls
    .map((t) => {
      const mark = t.status === 'error' ? '✗' : t.resultUnknown || t.status === 'started' ? '?' : '';
      return `${t.name}${mark}${t.subagent?.length ? `(${toolCallsText(t.subagent)})` : ''}`;
    })
    .join(' ');
}
