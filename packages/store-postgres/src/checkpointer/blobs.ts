import {
  type BlobDraft,
  contentKey,
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

  /**
   * Ids for drafts, inserting the new ones (in one statement). Call inside the write transaction. A row is found by
   * the first 8 bytes of the draft's content key and confirmed by the CRC-32 in its packed head; a value whose key
   * another value holds (a 64-bit collision) is stored without a key, so it is never shared.
   */
  async store(q: Queryable, thread: number, drafts: readonly BlobDraft[]): Promise<number[]> {
    const ids: (number | undefined)[] = drafts.map((d) => this.known.get(`${thread}:${d.key}`));
    const unknown = drafts.filter((_, i) => ids[i] === undefined);
    if (unknown.length === 0) return ids as number[];
    const packed = new Map<string, Buffer>();
    for (const d of unknown) if (d.json) packed.set(d.key, pack(d.json));
    const found = new Map<string, number>();
    const taken = new Set<string>();
    const lookup = async (keys: string[]) => {
      const { rows } = await q.query<{ id: number; key: string; crc: Buffer | null }>(
        `SELECT id, key::text AS key,
           CASE WHEN get_byte(data, 0) IN (${CRC_FORMATS}) THEN substring(data FROM 2 FOR 4) END AS crc
         FROM cp_blobs WHERE thread = $1 AND key = ANY($2::bigint[])`,
        [thread, keys.map(shortKey)],
      );
      const rowOf = new Map(rows.map((row) => [row.key, row]));
      for (const key of keys) {
        const row = rowOf.get(shortKey(key));
        if (!row) continue;
        const mine = packed.get(key);
        // A draft without its JSON is one this process saw stored under that key: the key alone names it.
        if (mine === undefined || row.crc?.equals(mine.subarray(1, 5))) found.set(key, row.id);
        else taken.add(key);
      }
    };
    await lookup(unknown.map((d) => d.key));
    // One draft per 8-byte key (two in one batch would both be handed the row of the first), in key order, so
    // that two transactions storing some of the same values lock them in the same order.
    const keys = new Set<string>();
    const fresh = unknown
      .filter((d) => !found.has(d.key) && !taken.has(d.key))
      .filter((d) => {
        const short = shortKey(d.key);
        if (keys.has(short)) taken.add(d.key);
        else keys.add(short);
        return !taken.has(d.key);
      })
      .sort((a, b) => compareKeys(shortKey(a.key), shortKey(b.key)));
    if (fresh.some((d) => !packed.has(d.key))) throw new MissingBlobError();
    if (fresh.length > 0) {
      const { rows } = await q.query<{ id: number; key: string }>(
        `INSERT INTO cp_blobs (thread, key, data)
         SELECT $1, k, d FROM unnest($2::bigint[], $3::bytea[]) WITH ORDINALITY AS t(k, d, i) ORDER BY i
         ON CONFLICT (thread, key) DO NOTHING RETURNING id, key::text AS key`,
        [thread, fresh.map((d) => shortKey(d.key)), fresh.map((d) => packed.get(d.key)!)],
      );
      const inserted = new Map(rows.map((row) => [row.key, row.id]));
      for (const d of fresh) {
        const id = inserted.get(shortKey(d.key));
        if (id !== undefined) found.set(d.key, id);
      }
      // Another writer inserted some of them meanwhile: they exist now (or another value holds their key).
      const raced = fresh.filter((d) => !found.has(d.key)).map((d) => d.key);
      if (raced.length > 0) await lookup(raced);
    }
    for (const d of unknown) {
      if (found.has(d.key) || !taken.has(d.key)) continue;
      const data = packed.get(d.key);
      if (data === undefined) throw new MissingBlobError();
      const { rows } = await q.query<{ id: number }>(
        'INSERT INTO cp_blobs (thread, key, data) VALUES ($1, NULL, $2) RETURNING id',
        [thread, data],
      );
      found.set(d.key, rows[0]!.id);
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
    const { rows } = await q.query<{ id: number; data: Buffer }>(
      'SELECT id, data FROM cp_blobs WHERE id = ANY($1::bigint[])',
      [missing],
    );
    for (const row of rows) {
      const { value, json } = await this.decodeJson(row.id, row.data);
      // The encoder recognises the value by identity: it is not serialised again while it stays in the thread.
      rememberIdentity(value, contentKey(json));
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
    return (await this.decodeJson(id, data)).value;
  }

  private async decodeJson(id: number, data: Buffer): Promise<{ value: unknown; json: Buffer }> {
    let bytes: Buffer;
    try {
      bytes = unpack(data, 'cp_blobs');
    } catch (error) {
      throw new DamageError('cp_blobs', error instanceof DamageError ? error.reason : reasonOf(error), {
        blobId: id,
      });
    }
    try {
      return { value: await this.serde.loadsTyped('json', bytes), json: bytes };
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

/** Record formats whose head holds a CRC-32 of the value's JSON (`pack`'s checksummed ones). */
const CRC_FORMATS = '90, 165';

/** The 8-byte key a value is found by: the first 8 bytes of its content key, as a signed 64-bit integer. */
function shortKey(key: string): string {
  return Buffer.from(key, 'base64').readBigInt64BE(0).toString();
}

function compareKeys(a: string, b: string): number {
  const [x, y] = [BigInt(a), BigInt(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}
