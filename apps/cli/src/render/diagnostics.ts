import { relative } from 'node:path';
import type { Style } from './style.js';

/** The fields of a vfile `VFileMessage` this CLI reads. */
export interface DiagnosticLike {
  file?: string | undefined;
  line?: number | undefined;
  column?: number | undefined;
  reason: string;
  ruleId?: string | undefined;
  source?: string | undefined;
  fatal?: boolean | null | undefined;
}

export function severityOf(message: DiagnosticLike): 'error' | 'warning' | 'info' {
  return message.fatal === true ? 'error' : message.fatal === false ? 'warning' : 'info';
}

/** `file:line:col  severity  message  ruleId`, paths relative to `cwd` when inside it. */
export function formatDiagnostic(message: DiagnosticLike, cwd: string, style?: Style): string {
  const file = message.file ? relativeIfInside(cwd, message.file) : '<unknown>';
  const where = `${file}:${message.line ?? 1}:${message.column ?? 1}`;
  const severity = severityOf(message);
  const colored = style
    ? style(severity === 'error' ? 'red' : severity === 'warning' ? 'yellow' : 'blue', severity)
    : severity;
  const rule = message.ruleId ? `${message.source ? `${message.source}:` : ''}${message.ruleId}` : '';
  return `${where}  ${colored}  ${message.reason}${rule ? `  ${rule}` : ''}`;
}

export function relativeIfInside(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}

export function summarize(messages: readonly DiagnosticLike[]): {
  errors: number;
  warnings: number;
  infos: number;
} {
  let errors = 0;
  let warnings = 0;
  let infos = 0;
  for (const m of messages) {
    const s = severityOf(m);
    if (s === 'error') errors++;
    else if (s === 'warning') warnings++;
    else infos++;
  }
  return { errors, warnings, infos };
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
