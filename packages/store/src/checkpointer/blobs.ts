import type { Db } from '../db.js';
import { type BlobDraft, rememberIdentity, type Serde } from './codec.js';
import { pack, unpack } from './compress.js';
import { DamageError, reasonOf } from './damage.js';

/** Decoded values kept in memory, by blob id (ids are never reused: AUTOINCREMENT). */
const DECODED_MAX = 20_000;
/** Known (thread, content hash) → blob id, to skip a lookup per element on put. */
const KNOWN_MAX = 100_000;

/**
 * Content-addressed blob storage for one database, with two bounded caches. Decoded values
 * are shared between loads: LangGraph's reducers build new lists and never mutate messages
 * they are given, so a history that is re-read on every turn is decoded once per process.
 */
export class BlobStore {
  private readonly decoded = new Map<number, unknown>();
  private readonly known = new Map<string, number>();
  private readonly find;
  private readonly insert;
  private readonly read;

  constructor(
    db: Db,
    private readonly serde: Serde,
  ) {
    this.find = db.prepare<[number, Buffer], { id: number }>(
      'SELECT id FROM cp_blobs WHERE thread = ? AND hash = ?',
    );
    this.insert = db.prepare<[number, Buffer, Buffer]>(
      'INSERT INTO cp_blobs (thread, hash, data) VALUES (?, ?, ?)',
    );
    this.read = db.prepare<[string], { id: number; hash: Buffer; data: Buffer }>(
      'SELECT id, hash, data FROM cp_blobs WHERE id IN (SELECT value FROM json_each(?))',
    );
  }

  /** Ids for drafts, inserting the new ones. Call inside the write transaction. */
  store(thread: number, drafts: readonly BlobDraft[]): number[] {
    return drafts.map((draft) => {
      const cacheKey = `${thread}:${draft.key}`;
      const cached = this.known.get(cacheKey);
      if (cached !== undefined) return cached;
      const hash = Buffer.from(draft.key, 'base64');
      let id = this.find.get(thread, hash)?.id;
      if (id === undefined) {
        if (!draft.json) throw new MissingBlobError();
        id = Number(this.insert.run(thread, hash, pack(draft.json)).lastInsertRowid);
      }
      return id;
    });
  }

  /** After the transaction that stored `drafts` as `ids` committed: skip their lookup next time. */
  remember(thread: number, drafts: readonly BlobDraft[], ids: readonly number[]): void {
    for (const [i, draft] of drafts.entries())
      remember(this.known, `${thread}:${draft.key}`, ids[i]!, KNOWN_MAX);
  }

  /** The decoded values of `ids`, from the cache or the database. */
  async load(ids: Iterable<number>): Promise<Map<number, unknown>> {
    const out = new Map<number, unknown>();
    const missing: number[] = [];
    for (const id of ids) {
      if (out.has(id)) continue;
      if (this.decoded.has(id)) out.set(id, this.decoded.get(id));
      else missing.push(id);
    }
    if (missing.length === 0) return out;
    const rows = this.read.all(JSON.stringify(missing));
    for (const row of rows) {
      const value = await this.decode(row.id, row.data);
      rememberIdentity(value, row.hash.toString('base64'));
      out.set(row.id, value);
      remember(this.decoded, row.id, value, DECODED_MAX);
    }
    for (const id of missing) {
      if (!out.has(id)) throw new DamageError('cp_blobs', `stored value ${id} is missing`, { blobId: id });
    }
    return out;
  }

  /** One stored value: checksum, inflate, then the serializer. */
  async decode(id: number, data: Buffer): Promise<unknown> {
    const bytes = (() => {
      try {
        return unpack(data, 'cp_blobs');
      } catch (error) {
        throw error instanceof DamageError
          ? new DamageError('cp_blobs', error.reason, { blobId: id })
          : new DamageError('cp_blobs', reasonOf(error), { blobId: id });
      }
    })();
    try {
      return await this.serde.loadsTyped('json', bytes);
    } catch (error) {
      throw new DamageError('cp_blobs', `does not decode (${reasonOf(error)})`, { blobId: id });
    }
  }

  /** Whether this process knows that `thread` stores a blob with content key `key`. */
  has(thread: number | undefined, key: string): boolean {
    return thread !== undefined && this.known.has(`${thread}:${key}`);
  }

  /** Drops cache entries of deleted threads. */
  forgetThreads(threads: readonly number[]): void {
    if (threads.length === 0) return;
    const prefixes = threads.map((t) => `${t}:`);
    for (const key of this.known.keys()) if (prefixes.some((p) => key.startsWith(p))) this.known.delete(key);
  }
}

/** A value this process believed stored is gone (its thread was deleted by another process). */
export class MissingBlobError extends Error {
  constructor() {
    super('a stored checkpoint value vanished while saving');
  }
}

function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}
