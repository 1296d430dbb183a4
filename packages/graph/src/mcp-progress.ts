import type { OutputChunk } from '@birdie/entrypoints';

/**
 * MCP progress notifications as a call's live output. The adapters report progress per client with the tool's name
 * and arguments but not the call, so the call is found through its arguments object: the adapters hand the very same
 * object to `beforeToolCall` (with the call's config, where `execute` put its listener) and to `onProgress`.
 */

const LISTENER = 'birdie_mcp_output';
const listeners = new WeakMap<object, (chunk: OutputChunk) => void>();

/** The invoke config entry that carries a call's listener to the hook below. */
export function progressConfig(
  onOutput: ((chunk: OutputChunk) => void) | undefined,
): Record<string, unknown> {
  return onOutput ? { configurable: { [LISTENER]: onOutput } } : {};
}

interface ProgressNotice {
  progress: number;
  total?: number;
  message?: string;
}

/** One line a notification: its message when the server sends one, with how far along it is. */
export function progressLine(notice: ProgressNotice): string {
  const along = notice.total !== undefined ? `${notice.progress} of ${notice.total}` : `${notice.progress}`;
  const message = notice.message?.replace(/\s+/g, ' ').trim();
  return message ? `${message} (${along})\n` : `progress ${along}\n`;
}

/** The hooks for `MultiServerMCPClient`'s options. */
export const progressHooks = {
  beforeToolCall(request: { args?: unknown }, _state: unknown, config: unknown): void {
    const listener = (config as { configurable?: Record<string, unknown> } | undefined)?.configurable?.[
      LISTENER
    ];
    if (typeof listener === 'function' && request.args !== null && typeof request.args === 'object') {
      listeners.set(request.args, listener as (chunk: OutputChunk) => void);
    }
  },
  onProgress(notice: ProgressNotice, source: { type: string; args?: unknown }): void {
    if (source.type !== 'tool' || source.args === null || typeof source.args !== 'object') return;
    listeners.get(source.args)?.({ stream: 'stdout', text: progressLine(notice) });
  },
};
