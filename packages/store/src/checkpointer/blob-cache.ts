import { type BlobDraft, rememberIdentity, type Serde } from './codec.js';
import { unpack } from './compress.js';
import { DamageError, reasonOf } from './damage.js';

// The per-process side of content-addressed values, the same for both back ends: which values a thread is known
// to store, decoded values shared between loads, and decoding one stored value. Back ends add the statements.

/** Decoded values kept in memory, by blob id (ids are never reused): at most this many… */
const DECODED_MAX = 20_000;
/**
 * …weighing at most this much as JSON (the heap holds a few times that): a few long tool results must not make the
 * cache keep gigabytes. The least recently read go first.
 */
const DECODED_BYTES_MAX = 32 * 1024 * 1024;
/** Known (thread, content key) → blob id, to skip a lookup per element on put. */
const KNOWN_MAX = 100_000;

/** A value this process believed stored is gone (its thread was deleted by another process). */
export class MissingBlobError extends Error {
  constructor() {
    super('a stored checkpoint value vanished while saving');
  }
}

/**
 * Two bounded caches. Decoded values are shared between loads: LangGraph's reducers build new lists and never
 * mutate messages they are given, so a history that is re-read on every turn is decoded once per process.
 */
export class BlobCache {
  private readonly decoded = new Map<number, { value: unknown; bytes: number }>();
  private decodedBytes = 0;
  private readonly known = new Map<string, number>();

  constructor(protected readonly serde: Serde) {}

  /** The id this process knows `thread` stores the value with content key `key` under. */
  protected knownId(thread: number, key: string): number | undefined {
    return this.known.get(`${thread}:${key}`);
  }

  /** After the transaction that stored `drafts` as `ids` committed: skip their lookup next time. */
  remember(thread: number, drafts: readonly BlobDraft[], ids: readonly number[]): void {
    for (const [i, draft] of drafts.entries())
      remember(this.known, `${thread}:${draft.key}`, ids[i]!, KNOWN_MAX);
  }

  /** Whether this process knows that `thread` stores a blob with content key `key`. */
  has(thread: number | undefined, key: string): boolean {
    return thread !== undefined && this.known.has(`${thread}:${key}`);
  }

  /** Drops the cache entries of these threads (deleted, or repaired: their values may have moved). */
  forgetThreads(threads: readonly number[]): void {
    if (threads.length === 0) return;
    const prefixes = threads.map((t) => `${t}:`);
    for (const key of this.known.keys()) if (prefixes.some((p) => key.startsWith(p))) this.known.delete(key);
  }

  /** The values of `ids` decoded already (`out`), and the ids still to read (`missing`). */
  protected cached(ids: Iterable<number>): { out: Map<number, unknown>; missing: number[] } {
    const out = new Map<number, unknown>();
    const missing: number[] = [];
    for (const id of ids) {
      if (out.has(id)) continue;
      const hit = this.decoded.get(id);
      if (hit) {
        // Read again: the newest now (a history re-read every turn stays).
        this.decoded.delete(id);
        this.decoded.set(id, hit);
        out.set(id, hit.value);
      } else missing.push(id);
    }
    return { out, missing };
  }

  /** A value read and decoded from `bytes` of JSON, with its content key: later loads share it. */
  protected keep(out: Map<number, unknown>, id: number, value: unknown, key: string, bytes: number): void {
    // The encoder recognises the value by identity: it is not serialised again while it stays in the thread.
    rememberIdentity(value, key);
    out.set(id, value);
    this.forgetDecoded(id);
    if (bytes > DECODED_BYTES_MAX) return;
    this.decoded.set(id, { value, bytes });
    this.decodedBytes += bytes;
    while (this.decoded.size > DECODED_MAX || this.decodedBytes > DECODED_BYTES_MAX)
      this.forgetDecoded(this.decoded.keys().next().value as number);
  }

  private forgetDecoded(id: number): void {
    const entry = this.decoded.get(id);
    if (!entry) return;
    this.decoded.delete(id);
    this.decodedBytes -= entry.bytes;
  }

  /** Throws for the first of `missing` that no row answered. */
  protected requireAll(out: ReadonlyMap<number, unknown>, missing: readonly number[]): void {
    for (const id of missing) {
      if (!out.has(id)) throw new DamageError('cp_blobs', `stored value ${id} is missing`, { blobId: id });
    }
  }

  /** One stored value: checksum, inflate, then the serializer. */
  async decode(id: number, data: Buffer): Promise<unknown> {
    return (await this.decodeJson(id, data)).value;
  }

  /** `decode`, with the value's JSON. */
  protected async decodeJson(id: number, data: Buffer): Promise<{ value: unknown; json: Buffer }> {
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
}

function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}
