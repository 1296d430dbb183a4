import type { McpNotice } from '@birdie/graph';
import type { RunNotice } from '@birdie/store';

const CHANGED: Record<string, string> = {
  'tools-changed': 'its tools changed',
  'resources-changed': 'its resources changed',
  'prompts-changed': 'its prompts changed',
};

/** A server's notice as the run log keeps it: a log message at its level, change news at `info`. */
export function runNotice(notice: McpNotice, at = new Date()): RunNotice {
  if (notice.kind === 'log') {
    const data = typeof notice.data === 'string' ? notice.data : JSON.stringify(notice.data);
    return {
      at,
      server: notice.server,
      level: notice.level,
      kind: 'log',
      text: notice.logger ? `[${notice.logger}] ${data}` : String(data),
    };
  }
  const text = notice.kind === 'resource-updated' ? `${notice.uri} changed` : CHANGED[notice.kind];
  return { at, server: notice.server, level: 'info', kind: notice.kind, text: text ?? notice.kind };
}
