import { createHash } from 'node:crypto';

/**
 * How a value is stored. Small values are inlined as serializer JSON; arrays (message lists)
 * and delta snapshots of arrays are stored element by element in `cp_blobs`, content-addressed
 * per thread, so a message is stored once however many checkpoints and snapshots hold it.
 */
export type Ref =
  | ['j', string] // serializer JSON, inline
  | ['x', string] // serializer "bytes", base64, inline
  | ['b', number] // one blob
  | ['a', number[]] // array of blobs, run-length encoded ids
  | ['s', number[]] // DeltaSnapshot of an array of blobs, run-length encoded ids
  | ['S', Ref] // DeltaSnapshot of anything else
  | ['o', Record<string, Ref>] // plain object holding a list, property by property
  | ['u']; // undefined

/** A blob waiting for its id: content hash and serializer JSON bytes. */
export interface BlobDraft {
  key: string;
  json: Uint8Array | undefined;
  /**
   * This process serialised or decoded that very object before (for a checkpoint it wrote, or read back: a thread
   * continued after a restart, or written by another process): probably stored already, so the SQLite back end looks
   * it up before inserting it, rather than packing it for an insert that finds the row and uses up an id. A hint for
   * SQLite only: PostgreSQL ignores it.
   */
  seen?: boolean;
}

/**
 * Content keys of values this process already serialised or decoded, by object identity, so
 * a delta snapshot of 2,000 messages costs 2,000 lookups instead of 2,000 serialisations.
 * `id` and `content` are checked on use: LangGraph's stock reducer assigns ids in place.
 */
const identities = new WeakMap<object, { key: string; id: unknown; content: unknown }>();

export function rememberIdentity(value: unknown, key: string): void {
  if (typeof value !== 'object' || value === null) return;
  const v = value as { id?: unknown; content?: unknown };
  identities.set(value, { key, id: v.id, content: v.content });
}

function knownKey(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const known = identities.get(value);
  if (!known) return undefined;
  const v = value as { id?: unknown; content?: unknown };
  return known.id === v.id && known.content === v.content ? known.key : undefined;
}

export function contentKey(json: Uint8Array): string {
  return createHash('sha1').update(json).digest().subarray(0, 12).toString('base64');
}

export interface Serde {
  dumpsTyped(value: unknown): Promise<[string, Uint8Array]>;
  loadsTyped(type: string, data: Uint8Array | string): Promise<unknown>;
}

const INLINE_MAX = 160;

interface DeltaSnapshotLike {
  lg_name: 'DeltaSnapshot';
  value: unknown;
}

export function isDeltaSnapshot(value: unknown): value is DeltaSnapshotLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { lg_name?: unknown }).lg_name === 'DeltaSnapshot'
  );
}

/** The structural shape LangGraph's `isDeltaSnapshot` recognises. */
export function deltaSnapshot(value: unknown): DeltaSnapshotLike {
  return { lg_name: 'DeltaSnapshot', value };
}

/**
 * Serialises values into refs whose blob ids are placeholders (indexes into `blobs`),
 * so the async serializer runs before the synchronous write transaction assigns ids.
 */
export class Encoder {
  readonly blobs: BlobDraft[] = [];
  private readonly byKey = new Map<string, number>();

  /** `stored(key)`: whether the target thread already holds a blob with that key. */
  constructor(
    private readonly serde: Serde,
    private readonly stored: (key: string) => boolean = () => false,
  ) {}

  async encode(value: unknown): Promise<Ref> {
    if (value === undefined) return ['u'];
    if (isDeltaSnapshot(value)) {
      const inner = await this.encode(value.value);
      return inner[0] === 'a' ? ['s', inner[1]] : ['S', inner];
    }
    if (holdsList(value)) {
      // A graph's input (`{messages: [...]}`) is stored property by property, so the messages in it are the same
      // blobs the channel's writes and snapshots refer to, not a second copy.
      const props: Record<string, Ref> = {};
      for (const [key, prop] of Object.entries(value)) {
        if (prop !== undefined) props[key] = await this.encode(prop); // JSON leaves an undefined property out
      }
      return ['o', props];
    }
    if (Array.isArray(value) && value.length > 0) {
      // Elements this thread already stores are referenced; only the new ones are serialised.
      const keys = value.map((v) => {
        const key = knownKey(v);
        return key !== undefined && this.stored(key) ? key : undefined;
      });
      const parts = await Promise.all(value.map((v, i) => (keys[i] ? undefined : this.serde.dumpsTyped(v))));
      if (parts.every((part) => part === undefined || part[0] === 'json')) {
        if (keys.every((key) => key === undefined)) {
          const total = parts.reduce((n, part) => n + part![1].length + 1, 1);
          if (total <= INLINE_MAX) {
            return ['j', `[${parts.map((part) => Buffer.from(part![1]).toString('utf8')).join(',')}]`];
          }
        }
        return ['a', value.map((v, i) => (keys[i] ? this.addKnown(keys[i]) : this.add(parts[i]![1], v)))];
      }
    }
    const [type, bytes] = await this.serde.dumpsTyped(value);
    if (type === 'bytes') return ['x', Buffer.from(bytes).toString('base64')];
    if (bytes.length <= INLINE_MAX) return ['j', Buffer.from(bytes).toString('utf8')];
    return ['b', this.add(bytes)];
  }

  private add(json: Uint8Array, source?: unknown): number {
    const key = contentKey(json);
    const seen = knownKey(source) === key;
    rememberIdentity(source, key);
    const index = this.addKnown(key, json);
    if (seen) this.blobs[index]!.seen = true;
    return index;
  }

  /** A blob by key; `json` may be left out only when the thread already stores that key. */
  private addKnown(key: string, json?: Uint8Array): number {
    let index = this.byKey.get(key);
    if (index === undefined) {
      index = this.blobs.length;
      this.blobs.push({ key, json });
      this.byKey.set(key, index);
    } else if (json && !this.blobs[index]!.json) {
      this.blobs[index]!.json = json;
    }
    return index;
  }
}

/**
 * A plain object (not a class instance, not a serialised LangChain object) with a non-empty list property: the
 * serializer turns it into JSON property by property, so storing each property on its own reads back the same.
 */
function holdsList(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  if ('lc' in value || 'lg_name' in value || 'toJSON' in value) return false;
  return Object.values(value).some((prop) => Array.isArray(prop) && prop.length > 0);
}

/** Replaces placeholder indexes with blob ids and run-length encodes id lists. */
export function resolveRef(ref: Ref, ids: readonly number[]): Ref {
  switch (ref[0]) {
    case 'b':
      return ['b', ids[ref[1]]!];
    case 'a':
    case 's':
      return [ref[0], runLength(ref[1].map((i) => ids[i]!))];
    case 'S':
      return ['S', resolveRef(ref[1], ids)];
    case 'o':
      return ['o', mapProps(ref[1], (prop) => resolveRef(prop, ids))];
    default:
      return ref;
  }
}

/** Blob ids a resolved ref points at. */
export function refIds(ref: Ref): number[] {
  switch (ref[0]) {
    case 'b':
      return [ref[1]];
    case 'a':
    case 's':
      return expand(ref[1]);
    case 'S':
      return refIds(ref[1]);
    case 'o':
      return Object.values(ref[1]).flatMap(refIds);
    default:
      return [];
  }
}

/** Builds the value back; `blobs` must hold every id `refIds(ref)` returns. */
export async function decodeRef(
  ref: Ref,
  serde: Serde,
  blobs: ReadonlyMap<number, unknown>,
): Promise<unknown> {
  switch (ref[0]) {
    case 'u':
      return undefined;
    case 'j':
      return serde.loadsTyped('json', ref[1]);
    case 'x':
      return serde.loadsTyped('bytes', Buffer.from(ref[1], 'base64'));
    case 'b':
      return blobs.get(ref[1]);
    case 'a':
      return expand(ref[1]).map((id) => blobs.get(id));
    case 's':
      return deltaSnapshot(expand(ref[1]).map((id) => blobs.get(id)));
    case 'S':
      return deltaSnapshot(await decodeRef(ref[1], serde, blobs));
    case 'o': {
      const value: Record<string, unknown> = {};
      for (const [key, prop] of Object.entries(ref[1])) value[key] = await decodeRef(prop, serde, blobs);
      return value;
    }
  }
}

function mapProps(props: Record<string, Ref>, fn: (ref: Ref) => Ref): Record<string, Ref> {
  const out: Record<string, Ref> = {};
  for (const [key, prop] of Object.entries(props)) out[key] = fn(prop);
  return out;
}

/**
 * Runs of consecutive ids as (start, length) pairs, each start written as the gap from the end
 * of the previous run: [5,6,7,9,10,12] → runs (5,3) (9,2) (12,1) → [5,3, 1,2, 1,1]. Message ids
 * of a thread are mostly consecutive with small regular gaps, which deflate folds to nothing.
 */
function runLength(ids: number[]): number[] {
  const runs: number[] = [];
  for (const id of ids) {
    const n = runs.length;
    if (n > 0 && runs[n - 2]! + runs[n - 1]! === id) runs[n - 1]! += 1;
    else runs.push(id, 1);
  }
  const out: number[] = [];
  let end = 0;
  for (let i = 0; i < runs.length; i += 2) {
    out.push(runs[i]! - end, runs[i + 1]!);
    end = runs[i]! + runs[i + 1]!;
  }
  return out;
}

function expand(pairs: number[]): number[] {
  const ids: number[] = [];
  let end = 0;
  for (let i = 0; i < pairs.length; i += 2) {
    const start = end + pairs[i]!;
    for (let k = 0; k < pairs[i + 1]!; k += 1) ids.push(start + k);
    end = start + pairs[i + 1]!;
  }
  return ids;
}
