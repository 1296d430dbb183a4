import type { FileCheck } from '@birdie/runtime/check-files';
import { sortDiagnostics, summarize } from '@birdie/runtime/diagnostic-summary';
import { EXIT_OK, EXIT_RUN, type Io, write } from '../io.js';
import { formatDiagnostic, plural } from '@birdie/terminal/diagnostics';
import { styler } from '@birdie/terminal/style';
import { skippedLine } from '@birdie/terminal/workspace-trust';

/**
 * The end of a check command: the line naming the untrusted folders it read but skipped (stderr), every diagnostic in
 * file order, then `N <noun>s loaded: E errors, W warnings, I info` (red when there are errors). Exit 1 when any
 * diagnostic is an error.
 */
export function printCheckReport(io: Io, { messages, loaded, untrusted }: FileCheck, noun: string): number {
  // Their files were read and checked (their problems are in the report), but they do not load until trusted.
  const skipped = skippedLine(untrusted);
  if (skipped) write(io.stderr, skipped);
  const style = styler(io.stdout, io.env);
  const sorted = sortDiagnostics(messages);
  for (const m of sorted) write(io.stdout, formatDiagnostic(m, io.cwd, style));
  const { errors, warnings, infos } = summarize(sorted);
  const summary = `${plural(loaded, noun)} loaded: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}, ${infos} info`;
  if (sorted.length) write(io.stdout, '');
  write(io.stdout, errors ? style('red', summary) : style('green', summary));
  return errors ? EXIT_RUN : EXIT_OK;
}
