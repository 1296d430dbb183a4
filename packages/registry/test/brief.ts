import type { VFileMessage } from 'vfile-message';

/** `line:column ruleId severity`, as the parser's fixtures write messages. */
export function brief(message: VFileMessage): string {
  const severity = message.fatal === true ? 'error' : message.fatal === false ? 'warning' : 'info';
  return `${message.line}:${message.column} ${message.ruleId} ${severity}`;
}
