import type { DiagnosticLike } from './diagnostics.js';

/** A vfile message's severity: `fatal` true is an error, false a warning, unset an info (advice). */
export function severityOf(message: DiagnosticLike): 'error' | 'warning' | 'info' {
  return message.fatal === true ? 'error' : message.fatal === false ? 'warning' : 'info';
}

/** How many errors, warnings and infos: the summary line of a check. */
export function summarize(messages: readonly DiagnosticLike[]): {
  errors: number;
  warnings: number;
  infos: number;
} {
  const counts = { errors: 0, warnings: 0, infos: 0 };
  for (const m of messages) counts[`${severityOf(m)}s` as keyof typeof counts]++;
  return counts;
}

/** In file, line, column order, as `skills check` prints them. */
export function sortDiagnostics<T extends DiagnosticLike>(messages: readonly T[]): T[] {
  return [...messages].sort(
    (a, b) =>
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
}
