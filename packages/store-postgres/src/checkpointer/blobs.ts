import {
  type BlobDraft,
  DamageError,
  pack,
  reasonOf,
  rememberIdentity,
  type Serde,
  unpack,
} from '@birdie/store/backend';
import type { Queryable } from '../db.js';

/** Decoded values kept in memory, by blob id (ids are never reused: a sequence). */
const DECODED_MAX = 20_000;
/** Known (thread, content hash) → blob id, to skip a lookup per element on put. */
const KNOWN_MAX = 100_000;

/**
 * Content-addressed blob storage (the SQLite store's design): one row per distinct value per thread, two bounded
 * per-process caches. Decoded values are shared between loads: LangGraph's reducers build new lists and never
 * mutate the messages they are given, so a history that is re-read every turn is decoded once per process.
 */
export class PgBlobStore {
  private readonly decoded = new Map<number, unknown>();
  private readonly known = new Map<string, number>();

  constructor(private readonly serde: Serde) {}

  /** Ids for drafts, inserting the new ones (in one statement). Call inside the write transaction. */
  async store(q: Queryable, thread: number, drafts: readonly BlobDraft[]): Promise<number[]> {
    const ids: (number | undefined)[] = drafts.map((d) => this.known.get(`${thread}:${d.key}`));
    const unknown = drafts.filter((_, i) => ids[i] === undefined);
    if (unknown.length === 0) return ids as number[];
    const found = new Map<string, number>();
    const lookup = async (keys: string[]) => {
      const { rows } = await q.query<{ id: number; hash: Buffer }>(
        'SELECT id, hash FROM cp_blobs WHERE thread = $1 AND hash = ANY($2::bytea[])',
        [thread, keys.map((k) => Buffer.from(k, 'base64'))],
      );
      for (const row of rows) found.set(row.hash.toString('base64'), row.id);
    };
    await lookup(unknown.map((d) => d.key));
    // In key order, so that two transactions storing some of the same values lock them in the same order.
    const fresh = unknown
      .filter((d) => !found.has(d.key))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    if (fresh.length > 0) {
      if (fresh.some((d) => !d.json)) throw new MissingBlobError();
      const { rows } = await q.query<{ id: number; hash: Buffer }>(
        `INSERT INTO cp_blobs (thread, hash, data)
         SELECT $1, h, d FROM unnest($2::bytea[], $3::bytea[]) WITH ORDINALITY AS t(h, d, i) ORDER BY i
         ON CONFLICT (thread, hash) DO NOTHING RETURNING id, hash`,
        [thread, fresh.map((d) => Buffer.from(d.key, 'base64')), fresh.map((d) => pack(d.json!))],
      );
      for (const row of rows) found.set(row.hash.toString('base64'), row.id);
      // Another writer inserted some of them meanwhile: they exist now.
      const raced = fresh.filter((d) => !found.has(d.key)).map((d) => d.key);
      if (raced.length > 0) await lookup(raced);
    }
    return drafts.map((d, i) => {
      const id = ids[i] ?? found.get(d.key);
      if (id === undefined) throw new MissingBlobError();
      return id;
    });
  }

  /** After the transaction that stored `drafts` as `ids` committed: skip their lookup next time. */
  remember(thread: number, drafts: readonly BlobDraft[], ids: readonly number[]): void {
    for (const [i, draft] of drafts.entries())
      remember(this.known, `${thread}:${draft.key}`, ids[i]!, KNOWN_MAX);
  }

  /** The decoded values of `ids`, from the cache or the database. */
  async load(q: Queryable, ids: Iterable<number>): Promise<Map<number, unknown>> {
    const out = new Map<number, unknown>();
    const missing: number[] = [];
    for (const id of ids) {
      if (out.has(id)) continue;
      if (this.decoded.has(id)) out.set(id, this.decoded.get(id));
      else missing.push(id);
    }
    if (missing.length === 0) return out;
    const { rows } = await q.query<{ id: number; hash: Buffer; data: Buffer }>(
      'SELECT id, hash, data FROM cp_blobs WHERE id = ANY($1::bigint[])',
      [missing],
    );
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
    let bytes: Buffer;
    try {
      bytes = unpack(data, 'cp_blobs');
    } catch (error) {
      throw new DamageError('cp_blobs', error instanceof DamageError ? error.reason : reasonOf(error), {
        blobId: id,
      });
    }
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

  /** Drops every cache entry (after a delete or a repair, which may move or remove values). */
  forget(threads: readonly number[]): void {
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
