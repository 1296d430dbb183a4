import { type Db, immediate } from './db.js';
import { StoreError } from './errors.js';
import { validateUserId } from './ids.js';
import type { MemoryEntry, MemoryRepo, SyncOf } from './interface.js';

const MAX_CONTENT = 16 * 1024;

interface Row {
  id: number;
  user_id: string;
  content: string;
  created_at: number;
}

export function createMemory(db: Db): SyncOf<MemoryRepo> {
  const insert = db.prepare<[string, string, number], Row>(
    'INSERT INTO memory (user_id, content, created_at) VALUES (?, ?, ?) RETURNING *',
  );
  const select = db.prepare<[string], Row>('SELECT * FROM memory WHERE user_id = ? ORDER BY id');
  const remove = db.prepare('DELETE FROM memory WHERE user_id = ? AND id = ?');
  return {
    add(userId, content) {
      validateUserId(userId);
      if (typeof content !== 'string' || content.trim() === '' || content.length > MAX_CONTENT) {
        throw new StoreError(
          'invalid-argument',
          `memory content must be non-empty text of at most ${MAX_CONTENT} characters`,
        );
      }
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

function toEntry(row: Row): MemoryEntry {
  return { id: row.id, userId: row.user_id, content: row.content, createdAt: new Date(row.created_at) };
}
