import { EXIT_OK, EXIT_RUN, type Io, write } from '../io.js';
import {
  type DiagnosticLike,
  formatDiagnostic,
  plural,
  sortDiagnostics,
  summarize,
} from '../render/diagnostics.js';
import { styler } from '../render/style.js';

/** A path given to `skills check` or `agents check` that does not exist, reported like any other problem. */
export function missingPath(file: string): DiagnosticLike {
  return {
    file,
    line: 1,
    column: 1,
    reason: 'no such file or folder',
    ruleId: 'missing-path',
    fatal: true,
    source: 'birdie',
  };
}

/**
 * The end of a check command: every diagnostic in file order, then `N <noun>s loaded: E errors, W warnings, I info`
 * (red when there are errors). Exit 1 when any diagnostic is an error.
 */
export function printCheckReport(
  io: Io,
  messages: readonly DiagnosticLike[],
  loaded: number,
  noun: string,
): number {
  const style = styler(io.stdout, io.env);
  const sorted = sortDiagnostics(messages);
  for (const m of sorted) write(io.stdout, formatDiagnostic(m, io.cwd, style));
  const { errors, warnings, infos } = summarize(sorted);
  const summary = `${plural(loaded, noun)} loaded: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}, ${infos} info`;
  if (sorted.length) write(io.stdout, '');
  write(io.stdout, errors ? style('red', summary) : style('green', summary));
  return errors ? EXIT_RUN : EXIT_OK;
}
