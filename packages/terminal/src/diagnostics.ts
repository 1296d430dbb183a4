import { severityOf, sortDiagnostics } from '@birdie/runtime/diagnostic-summary';
import { type DiagnosticLike, relativeIfInside } from '@birdie/runtime/diagnostics';
import type { ReportIo } from './output.js';
import { type Style, styler } from './style.js';
import { visible } from './terminal-text.js';

export { type DiagnosticLike, relativeIfInside };

/**
 * `file:line:col  severity  message  ruleId`, paths relative to `cwd` when inside it. The message quotes the file (a
 * skill's name, a tool's entrypoint), which may be an untrusted clone's: its control characters are pictured.
 */
export function formatDiagnostic(message: DiagnosticLike, cwd: string, style?: Style): string {
  const file = message.file ? visible(relativeIfInside(cwd, message.file)) : '<unknown>';
  const where = `${file}:${message.line ?? 1}:${message.column ?? 1}`;
  const severity = severityOf(message);
  const colored = style
    ? style(severity === 'error' ? 'red' : severity === 'warning' ? 'yellow' : 'blue', severity)
    : severity;
  const rule = message.ruleId ? `${message.source ? `${message.source}:` : ''}${message.ruleId}` : '';
  return `${where}  ${colored}  ${visible(message.reason)}${rule ? `  ${rule}` : ''}`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The skill registry's warnings and errors, on stderr in `skills check`'s format, so a skipped folder or a broken
 * skill is never silent. Info messages stay with `birdie skills check`: they are advice, not problems.
 */
export function reportSkillProblems(messages: readonly DiagnosticLike[], io: ReportIo): void {
  const style = styler(io.stderr, io.env);
  for (const m of sortDiagnostics(messages.filter((m) => severityOf(m) !== 'info')))
    io.stderr.write(`${formatDiagnostic(m, io.cwd, style)}\n`);
}

/** A diagnostic's identity across reloads: the same problem in the same place is the same one. */
const problemKey = (m: DiagnosticLike) => `${m.file}:${m.line}:${m.column}:${m.ruleId}:${m.reason}`;

/**
 * For a long-running command that watches the skill folders (`birdie mcp`): reports each reload's problems, as
 * `reportSkillProblems` does, but only those the previous load did not have (`shown`: the start-up's, already
 * reported), so a save that breaks a file says its error once and the errors of files left alone are not repeated.
 */
export function reloadProblemReporter(
  io: ReportIo,
  shown: readonly DiagnosticLike[],
): (messages: readonly DiagnosticLike[]) => void {
  let known = new Set(shown.map(problemKey));
  return (messages) => {
    reportSkillProblems(
      messages.filter((m) => !known.has(problemKey(m))),
      io,
    );
    known = new Set(messages.map(problemKey));
  };
}
