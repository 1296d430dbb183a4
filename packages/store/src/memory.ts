import { type Db, immediate } from './db.js';
import { validateUserId } from './ids.js';
import type { MemoryEntry, MemoryRepo, SyncOf } from './interface.js';
import { checkMemoryContent } from './validate.js';

export interface MemoryRow {
  id: number;
  user_id: string;
  content: string;
  created_at: number;
}

export function createMemory(db: Db): SyncOf<MemoryRepo> {
  const insert = db.prepare<[string, string, number], MemoryRow>(
    'INSERT INTO memory (user_id, content, created_at) VALUES (?, ?, ?) RETURNING *',
  );
  const select = db.prepare<[string], MemoryRow>('SELECT * FROM memory WHERE user_id = ? ORDER BY id');
  const remove = db.prepare('DELETE FROM memory WHERE user_id = ? AND id = ?');
  return {
    add(userId, content) {
      validateUserId(userId);
      checkMemoryContent(content);
      return toEntry(immediate(db, () => insert.get(userId, content, Date.now()))!);
    },
    list(userId) {
      validateUserId(userId);
      return select.all(userId).map(toEntry);
    },
    remove(userId, id) {
      validateUserId(userId);
      if (!Number.isSafeInteger(id)) return false;
      return immediate(db, () => remove.run(userId, id)).changes > 0;
    },
  };
}

export function toEntry(row: MemoryRow): MemoryEntry {
  return { id: row.id, userId: row.user_id, content: row.content, createdAt: new Date(row.created_at) };
}
