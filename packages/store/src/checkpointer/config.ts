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

/** Where a put points: its thread (required), namespace, and the parent checkpoint the config names. */
export function putTarget(config: RunnableConfig): {
  threadId: string;
  ns: string;
  parentId: string | undefined;
} {
  const threadId = config.configurable?.thread_id as string | undefined;
  const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
  if (threadId === undefined) throw missing('thread_id', 'put a checkpoint');
  return { threadId, ns, parentId: config.configurable?.checkpoint_id as string | undefined };
}

/** Where a putWrites points: its thread and checkpoint (both required) and namespace. */
export function writesTarget(config: RunnableConfig): { threadId: string; ns: string; checkpointId: string } {
  const threadId = config.configurable?.thread_id as string | undefined;
  const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
  const checkpointId = config.configurable?.checkpoint_id as string | undefined;
  if (threadId === undefined) throw missing('thread_id', 'put writes');
  if (!checkpointId) throw missing('checkpoint_id', 'put writes');
  return { threadId, ns, checkpointId };
}
