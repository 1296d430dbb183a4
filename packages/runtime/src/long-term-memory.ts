import type { LongTermMemory } from '@birdie/graph';
import type { Store } from '@birdie/store';

/**
 * The user's long-term memory as the graph's `remember`/`recall`/`forget` tools use it (ids as text): given to an
 * agent's turn and to a call of `birdie mcp`, both for the session's own user.
 */
export function longTermMemory(store: Store, userId: string): LongTermMemory {
  return {
    list: async () =>
      (await store.memory.list(userId)).map((m) => ({ id: String(m.id), content: m.content })),
    add: async (content) => {
      const entry = await store.memory.add(userId, content);
      return { id: String(entry.id), content: entry.content };
    },
    remove: async (id) => /^\d+$/.test(id) && (await store.memory.remove(userId, Number(id))),
  };
}
