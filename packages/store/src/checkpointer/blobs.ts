import type { Db } from '../db.js';
import { BlobCache, MissingBlobError } from './blob-cache.js';
import type { BlobDraft, Serde } from './codec.js';
import { pack } from './compress.js';

export { MissingBlobError } from './blob-cache.js';

/**
 * Content-addressed blob storage in the SQLite file (ids are never reused: AUTOINCREMENT), with the shared
 * per-process caches of `BlobCache`.
 */
export class BlobStore extends BlobCache {
  private readonly find;
  private readonly insertNew;
  private readonly read;

  constructor(db: Db, serde: Serde) {
    super(serde);
    this.find = db.prepare<[number, Buffer], { id: number }>(
      'SELECT id FROM cp_blobs WHERE thread = ? AND hash = ?',
    );
    // Insert first: a value this process serialises is usually new to the thread (known ones come from the cache
    // without their JSON), so one statement does what a lookup and an insert did. But an insert that finds the row
    // stored is not free: it packs the value for nothing and uses up an id (AUTOINCREMENT advances `sqlite_sequence`
    // even when ON CONFLICT DO NOTHING skips the row). So a value this process already knows (`seen`), probably
    // stored, is looked up first.
    this.insertNew = db.prepare<[number, Buffer, Buffer], { id: number }>(
      'INSERT INTO cp_blobs (thread, hash, data) VALUES (?, ?, ?) ON CONFLICT (thread, hash) DO NOTHING RETURNING id',
    );
    this.read = db.prepare<[string], { id: number; hash: Buffer; data: Buffer }>(
      'SELECT id, hash, data FROM cp_blobs WHERE id IN (SELECT value FROM json_each(?))',
    );
  }

  /** Ids for drafts, inserting the new ones. Call inside the write transaction. */
  store(thread: number, drafts: readonly BlobDraft[]): number[] {
    return drafts.map((draft) => {
      const cached = this.knownId(thread, draft.key);
      if (cached !== undefined) return cached;
      const hash = Buffer.from(draft.key, 'base64');
      if (draft.json && !draft.seen) {
        const inserted = this.insertNew.get(thread, hash, pack(draft.json));
        if (inserted) return inserted.id;
      }
      const id = this.find.get(thread, hash)?.id;
      if (id !== undefined) return id;
      if (!draft.json) throw new MissingBlobError();
      return this.insertNew.get(thread, hash, pack(draft.json))!.id;
    });
  }

  /** The decoded values of `ids`, from the cache or the database. */
  async load(ids: Iterable<number>): Promise<Map<number, unknown>> {
    const { out, missing } = this.cached(ids);
    if (missing.length === 0) return out;
    const rows = this.read.all(JSON.stringify(missing));
    for (const row of rows) {
      const { value, json } = await this.decodeJson(row.id, row.data);
      this.keep(out, row.id, value, row.hash.toString('base64'), json.length);
    }
    this.requireAll(out, missing);
    return out;
  }
}
