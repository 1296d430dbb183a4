import type { DamagedRecord } from '../errors.js';
import { decodeRef, type Ref, refIds, type Serde } from './codec.js';
import { DamageError, reasonOf } from './damage.js';
import { withDescendants } from './descendants.js';
import { parseBody, parseRecord } from './read.js';

// What checking a session's records decides, apart from how a back end reads them: each back end pages
// through its own tables and hands every row to a `NamespaceCheck`, so both judge damage the same way.

/** What checking every stored record of one session found. */
export interface ThreadCheck {
  threadId: string;
  /** Each damaged record once: a damaged value is listed as `cp_blobs`, at the first step that reads it. */
  damaged: DamagedRecord[];
  /** Checkpoints that cannot be read back: damaged, reading a damaged value, or descended from one. */
  tainted: Set<number>;
  /** The checkpoints whose own records are damaged (the roots of `tainted`). */
  bad: Map<number, string>;
  /** Damaged values, by blob id, with the reason. */
  badBlobs: Map<number, string>;
  /** Per namespace, the newest checkpoint outside `tainted`. */
  lastGood: Map<string, { seq: number; checkpointId: string }>;
  /** Records decoded. */
  checked: number;
}

/** One checkpoint row of a namespace, as the check needs it (`stored`: the row has a body). */
export interface CheckpointInfo {
  seq: number;
  checkpoint_id: string;
  parent_seq: number | null;
  /** SQLite answers `body IS NOT NULL` with 0/1, PostgreSQL with a boolean. */
  stored: number | boolean;
}

/** How a back end decodes one stored value (checksum, inflate, serializer). */
export interface ValueDecoder {
  decode(id: number, data: Buffer): Promise<unknown>;
}

/** The rows of a check are read in pages of this many. */
export const CHECK_PAGE = 256;

interface Problem {
  reason: string;
  /** The record itself is damaged (not only a value it reads). */
  own: boolean;
}

export function emptyThreadCheck(threadId: string): ThreadCheck {
  return {
    threadId,
    damaged: [],
    tainted: new Set(),
    bad: new Map(),
    badBlobs: new Map(),
    lastGood: new Map(),
    checked: 0,
  };
}

const own = (error: unknown): Problem => ({
  reason: error instanceof DamageError ? error.reason : reasonOf(error),
  own: true,
});

/**
 * Checks the records of one namespace. Feed it every value first (`value`), so the records that read
 * them know which ones are gone or damaged; then the bodies and write records; then `finish`.
 */
export class NamespaceCheck {
  readonly #check: ThreadCheck;
  readonly #ns: string;
  readonly #infos: CheckpointInfo[];
  readonly #idOf: Map<number, string>;
  readonly #serde: Serde;
  readonly #values: ValueDecoder;
  readonly #blobIds = new Set<number>();
  readonly #badHere = new Map<number, string>();
  readonly #firstReader = new Map<number, number>();

  constructor(check: ThreadCheck, ns: string, infos: CheckpointInfo[], serde: Serde, values: ValueDecoder) {
    this.#check = check;
    this.#ns = ns;
    this.#infos = infos;
    this.#idOf = new Map(infos.map((i) => [i.seq, i.checkpoint_id]));
    this.#serde = serde;
    this.#values = values;
  }

  /** One stored value. */
  async value(id: number, data: Buffer): Promise<void> {
    this.#blobIds.add(id);
    this.#check.checked += 1;
    try {
      await this.#values.decode(id, data);
    } catch (error) {
      this.#badHere.set(id, error instanceof DamageError ? error.reason : reasonOf(error));
    }
  }

  /** The stored body of checkpoint `seq`. */
  async body(seq: number, data: Buffer): Promise<void> {
    this.#check.checked += 1;
    let problem: Problem | undefined;
    try {
      const { body, metadata } = parseBody(data, seq);
      problem = await this.#refsProblem(Object.values(body.vals), seq);
      if (!problem) {
        try {
          await this.#serde.loadsTyped('json', metadata);
        } catch (error) {
          problem = { reason: `its metadata does not decode (${reasonOf(error)})`, own: true };
        }
      }
    } catch (error) {
      problem = own(error);
    }
    if (!problem) return;
    if (problem.own) this.#record({ table: 'cp_checkpoints', seq, reason: problem.reason });
    this.#markBad(seq, problem.reason);
  }

  /** The write record of task `taskId` at checkpoint `seq`. */
  async writes(seq: number, taskId: string, data: Buffer): Promise<void> {
    this.#check.checked += 1;
    let problem: Problem | undefined;
    try {
      const parsed = parseRecord(data, seq, taskId);
      problem = await this.#refsProblem(
        parsed.w.map(([, , ref]) => ref),
        seq,
      );
    } catch (error) {
      problem = own(error);
    }
    if (!problem) return;
    if (problem.own) this.#record({ table: 'cp_writes', seq, taskId, reason: problem.reason });
    this.#markBad(seq, problem.reason);
  }

  /** The write records of checkpoint `seq` could not even be split by task: `error` says why. */
  unreadableWrites(seq: number, error: unknown): void {
    this.#check.checked += 1;
    const problem = own(error);
    this.#record({ table: 'cp_writes', seq, reason: problem.reason });
    this.#markBad(seq, problem.reason);
  }

  /** Lists the damaged values, marks what descends from a bad checkpoint and finds the last good one. */
  finish(): void {
    const check = this.#check;
    for (const [id, reason] of this.#badHere) {
      check.badBlobs.set(id, reason);
      const seq = this.#firstReader.get(id);
      this.#record({ table: 'cp_blobs', blobId: id, reason, ...(seq === undefined ? {} : { seq }) });
    }

    // Everything that descends from a bad checkpoint replays its records: it cannot be read either.
    for (const seq of withDescendants(this.#infos, (seq) => check.bad.has(seq))) check.tainted.add(seq);
    let best: CheckpointInfo | undefined;
    for (const info of this.#infos) {
      if (!info.stored || check.tainted.has(info.seq)) continue;
      if (!best || info.checkpoint_id > best.checkpoint_id) best = info;
    }
    if (best) check.lastGood.set(this.#ns, { seq: best.seq, checkpointId: best.checkpoint_id });
  }

  #record(d: Omit<DamagedRecord, 'sessionId' | 'ns'>): void {
    const entry: DamagedRecord = { sessionId: this.#check.threadId, ns: this.#ns, ...d };
    if (d.seq !== undefined && this.#idOf.has(d.seq)) entry.checkpointId = this.#idOf.get(d.seq)!;
    this.#check.damaged.push(entry);
  }

  #markBad(seq: number, reason: string): void {
    if (!this.#check.bad.has(seq)) this.#check.bad.set(seq, reason);
  }

  // A record reading a damaged value is unreadable but not itself damaged: the value is listed instead.
  async #refsProblem(refs: Ref[], seq: number): Promise<Problem | undefined> {
    for (const id of refs.flatMap(refIds)) {
      if (!this.#blobIds.has(id))
        return { reason: `refers to stored value ${id}, which is missing`, own: true };
      if (this.#badHere.has(id)) {
        const first = this.#firstReader.get(id);
        if (first === undefined || first > seq) this.#firstReader.set(id, seq);
        return { reason: `reads stored value ${id}, which is damaged`, own: false };
      }
    }
    for (const ref of refs) {
      try {
        await decodeRef(ref, this.#serde, new Map());
      } catch (error) {
        return { reason: `a value does not decode (${reasonOf(error)})`, own: true };
      }
    }
    return undefined;
  }
}
