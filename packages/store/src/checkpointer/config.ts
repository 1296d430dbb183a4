// Reading LangGraph configs: where a call points, and metadata filters.
import type { RunnableConfig } from '@langchain/core/runnables';
import { StoreError } from '../errors.js';

/** `\nch1\nch2\n`: lets the ancestor walk test "has a stored value" without inflating bodies. */
export function channelList(channels: string[]): string {
  return `\n${channels.join('\n')}\n`;
}

export function threadKey(threadId: string, ns: string): string {
  return `${ns}\u0000${threadId}`;
}

export function target(config: RunnableConfig) {
  const c = config.configurable ?? {};
  return {
    threadId: c.thread_id as string | undefined,
    ns: (c.checkpoint_ns as string | undefined) ?? '',
    checkpointId: (c.checkpoint_id ?? c.thread_ts) as string | undefined,
  };
}

export function matches(metadata: unknown, filter: Record<string, unknown>): boolean {
  const md = (metadata ?? {}) as Record<string, unknown>;
  return Object.entries(filter).every(([k, v]) =>
    typeof v === 'object' && v !== null ? JSON.stringify(md[k]) === JSON.stringify(v) : md[k] === v,
  );
}

export function missing(field: string, action: string): StoreError {
  return new StoreError(
    'invalid-argument',
    `cannot ${action}: config.configurable.${field} is required (the thread is the session id)`,
  );
}
