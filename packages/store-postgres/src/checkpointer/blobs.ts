import { BlobCache, type BlobDraft, contentKey, MissingBlobError, pack } from '@birdie/store/backend';

export { MissingBlobError } from '@birdie/store/backend';

import type { Queryable } from '../db.js';

/**
 * Content-addressed blob storage (the SQLite store's design): one row per distinct value per thread (ids come from
 * a sequence, never reused), with the shared per-process caches of `BlobCache`.
 */
export class PgBlobStore extends BlobCache {
  /**
   * Ids for drafts, inserting the new ones (in one statement). Call inside the write transaction. A row is found by
   * the first 8 bytes of the draft's content key and confirmed by the CRC-32 in its packed head; a value whose key
   * another value holds (a 64-bit collision) is stored without a key, so it is never shared.
   */
  async store(q: Queryable, thread: number, drafts: readonly BlobDraft[]): Promise<number[]> {
    const ids: (number | undefined)[] = drafts.map((d) => this.knownId(thread, d.key));
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

  /** The decoded values of `ids`, from the cache or the database. */
  async load(q: Queryable, ids: Iterable<number>): Promise<Map<number, unknown>> {
    const { out, missing } = this.cached(ids);
    if (missing.length === 0) return out;
    const { rows } = await q.query<{ id: number; data: Buffer }>(
      'SELECT id, data FROM cp_blobs WHERE id = ANY($1::bigint[])',
      [missing],
    );
    for (const row of rows) {
      // Rows keep only an 8-byte key: the content key comes from the JSON itself.
      const { value, json } = await this.decodeJson(row.id, row.data);
      this.keep(out, row.id, value, contentKey(json), json.length);
    }
    this.requireAll(out, missing);
    return out;
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
