import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
} from '@langchain/langgraph';
import { type Db, immediate, stateOf, writeEpoch } from '../db.js';
import { StoreError } from '../errors.js';
import { scrubSecrets } from '../secrets.js';
import { toStoreError } from '../sqlite-errors.js';
import { BlobStore } from './blobs.js';
import { MessageSerde } from './message-serde.js';
import type { Encoder } from './codec.js';
import { packText } from './compress.js';
import { channelList, putTarget, target, threadKey, writesTarget } from './config.js';
import { corruptRecordError } from './corrupt.js';
import { DamageError } from './damage.js';
import { withReuse } from './encode-reuse.js';
import { deltaHistory } from './history.js';
import { type DeltaChannelHistory, HistoryCache } from './history-walk.js';
import { listTuples } from './list.js';
import {
  checkpointText,
  draftValues,
  draftWrites,
  inheritedVals,
  mergeWrites,
  rememberBody,
} from './put-shape.js';
import { type Body, parseBody, parseRecord, type WritesRecord } from './read.js';
import { type CheckpointRow, prepareRows, type Rows } from './rows.js';
import { type TupleSource, toTuple } from './tuple.js';
import { checkThread, type ThreadCheck } from './verify.js';

type ChannelVersions = Parameters<BaseCheckpointSaver['put']>[3];
type PendingWrite = Parameters<BaseCheckpointSaver['putWrites']>[1][number];
type ListOptions = NonNullable<Parameters<BaseCheckpointSaver['list']>[1]>;

export interface CheckpointerOptions {
  /**
   * Called inside every write transaction with the thread id: throws to refuse the write (the store
   * passes its lease fence, so a process that lost a session's lease cannot write to it).
   */
  fence?: (threadId: string) => void;
}

/**
 * LangGraph checkpointer over the store's SQLite file. Message lists are stored element by
 * element and content-addressed, checkpoint bodies and writes are dictionary-deflated with a
 * CRC-32 each, and `getDeltaChannelHistory` walks ancestors with one recursive query. A record
 * that fails its checksum or does not decode is reported as `StoreError('corrupt-record')`
 * naming the session, the step and the file; `list` skips such checkpoints. See the README.
 */
export class BirdieCheckpointer extends BaseCheckpointSaver {
  /** @internal */
  readonly rows: Rows;
  /** @internal */
  readonly blobs: BlobStore;
  /** @internal How the shared tuple decoding reads this file's values and write records. */
  readonly source: TupleSource<CheckpointRow>;
  private readonly histories = new HistoryCache();
  /**
   * Thread rows seen by this process. Outside a write transaction only a hint for skipping serialisation; inside one,
   * trusted while `cacheEpoch` is the connection's `writeEpoch` (no other connection committed since, nothing of ours
   * rolled back), as are `seqs`.
   */
  private readonly threadIds = new Map<string, number>();
  /** Row ids of checkpoints this saver wrote or looked up, by `thread row\0checkpoint id`; newest last. */
  private readonly seqs = new Map<string, number>();
  private cacheEpoch = -1;
  /** Bodies of recent puts: the next put inherits unchanged values from its parent, usually the last one. */
  private readonly recentBodies = new Map<number, Body>();

  private readonly fence: (threadId: string) => void;

  constructor(
    private readonly db: Db,
    options: CheckpointerOptions = {},
  ) {
    super();
    // LangGraph's serializer, with messages revived directly: a resumed session decodes its whole history.
    this.serde = new MessageSerde(this.serde);
    this.rows = prepareRows(db);
    this.blobs = new BlobStore(db, this.serde);
    this.source = {
      serde: this.serde,
      loadValues: (ids) => this.blobs.load(ids),
      ownWrites: (row) => this.rows.writesOf.all(row.seq),
      writesOf: (seq) => this.rows.writesOf.all(seq),
    };
    this.fence = options.fence ?? (() => {});
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const { threadId, ns, checkpointId } = target(config);
    return this.guard(threadId, ns, async () => {
      if (threadId === undefined) return undefined;
      const thread = this.rows.thread.get(threadId, ns)?.id;
      if (thread === undefined) return undefined;
      const row = checkpointId ? this.rows.byId.get(thread, checkpointId) : this.rows.latest.get(thread);
      return row ? toTuple(this.source, row) : undefined;
    });
  }

  override async *list(config: RunnableConfig, options: ListOptions = {}): AsyncGenerator<CheckpointTuple> {
    this.ensureOpen();
    const { threadId } = target(config);
    try {
      yield* listTuples(this.source, this.db, config, options);
    } catch (error) {
      throw await this.mapError(error, threadId, (config.configurable?.checkpoint_ns as string) ?? '');
    }
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const { threadId, ns, parentId } = putTarget(config);
    await this.guard(threadId, ns, async () => {
      const [, metadataJson] = await this.serde.dumpsTyped(scrubSecrets(metadata));
      await this.putCheckpoint(threadId, ns, parentId, checkpoint, metadataJson, newVersions);
    });
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  private async putCheckpoint(
    threadId: string,
    ns: string,
    parentId: string | undefined,
    checkpoint: Checkpoint,
    metadataJson: Uint8Array,
    newVersions: ChannelVersions,
  ): Promise<void> {
    await this.withEncoder(threadId, ns, async (encoder) => {
      const drafts = await draftValues(encoder, checkpoint, newVersions);
      // The blob and body caches learn about rows only after the commit (a rolled-back attempt's ids get reused);
      // the thread-row and seq caches fill inside it and are dropped with the epoch if the transaction rolls back.
      const saved = immediate(this.db, () => {
        this.fence(threadId);
        const thread = this.threadRow(threadId, ns);
        const ids = this.blobs.store(thread, encoder.blobs);
        const parentSeq = parentId ? this.seqOf(thread, parentId) : null;
        const vals = inheritedVals(this.parentBody(parentSeq), checkpoint.channel_versions, newVersions);
        const { body, text } = checkpointText(checkpoint, vals, drafts, ids, metadataJson);
        const chans = channelList(Object.keys(vals));
        const packed = packText(text);
        // Usually a new step: one insert. A step that writes named first (a placeholder) or a re-put: filled in.
        const seq = this.rows.upsert.get(thread, checkpoint.id, parentSeq, chans, packed)!.seq;
        this.rememberSeq(thread, checkpoint.id, seq);
        return { thread, ids, seq, body };
      });
      this.blobs.remember(saved.thread, encoder.blobs, saved.ids);
      // A filled placeholder or a re-put changes what walks from its descendants find.
      this.histories.invalidateAfter(saved.seq, threadId, ns);
      rememberBody(this.recentBodies, saved.seq, saved.body);
    });
  }

  override async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath = '',
  ): Promise<void> {
    const { threadId, ns, checkpointId } = writesTarget(config);
    await this.guard(threadId, ns, () =>
      this.putTaskWrites(threadId, ns, checkpointId, writes, taskId, taskPath),
    );
  }

  private async putTaskWrites(
    threadId: string,
    ns: string,
    checkpointId: string,
    writes: PendingWrite[],
    taskId: string,
    taskPath: string,
  ): Promise<void> {
    await this.withEncoder(threadId, ns, async (encoder) => {
      const drafts = await draftWrites(encoder, writes);
      const saved = immediate(this.db, () => {
        this.fence(threadId);
        const thread = this.threadRow(threadId, ns);
        const seq = this.seqOf(thread, checkpointId);
        const ids = this.blobs.store(thread, encoder.blobs);
        // Usually the task's first record at this checkpoint: one insert. A retry or a later write of the same task
        // finds one and merges into it.
        const fresh = packText(JSON.stringify(mergeWrites({ p: taskPath, w: [] }, drafts, ids)));
        if (this.rows.newWrite.run(seq, taskId, fresh).changes === 0) {
          const existing = this.rows.writeRecord.get(seq, taskId)!;
          const record: WritesRecord = parseRecord(existing.writes, seq, taskId);
          this.rows.putWrite.run(seq, taskId, packText(JSON.stringify(mergeWrites(record, drafts, ids))));
        }
        return { thread, ids, seq };
      });
      this.blobs.remember(saved.thread, encoder.blobs, saved.ids);
      this.histories.invalidateAfter(saved.seq, threadId, ns);
    });
  }

  override async deleteThread(threadId: string): Promise<void> {
    await this.guard(undefined, '', async () => immediate(this.db, () => this.deleteThreadSync(threadId)));
  }

  /** @internal Deletes inside the caller's transaction (sessions.delete). */
  deleteThreadSync(threadId: string): void {
    const threads = this.rows.threadsOf.all(threadId).map((r) => r.id);
    this.rows.deleteWrites.run(threadId);
    this.rows.deleteCheckpoints.run(threadId);
    this.rows.deleteBlobs.run(threadId);
    this.rows.deleteThreads.run(threadId);
    this.rows.deleteQuarantine.run(threadId);
    this.forgetCaches(threads);
  }

  /** @internal Drops every per-process cache that may name rows of `threads` (after a delete or a repair). */
  forgetCaches(threads: readonly number[]): void {
    this.blobs.forgetThreads(threads);
    this.histories.clear();
    this.recentBodies.clear();
    this.threadIds.clear();
    this.seqs.clear();
  }

  /** @internal Decodes every record of a session (doctor, repair, and the last good step of an error). */
  checkThread(threadId: string): Promise<ThreadCheck> {
    return checkThread({ db: this.db, serde: this.serde, blobs: this.blobs }, threadId);
  }

  override async getDeltaChannelHistory(options: {
    config: RunnableConfig;
    channels: string[];
  }): Promise<Record<string, DeltaChannelHistory>> {
    const { threadId, ns } = target(options.config);
    return this.guard(threadId, ns, () =>
      deltaHistory(this, this.histories, options.config, options.channels),
    );
  }

  /**
   * The id of the thread's newest checkpoint, as `getTuple` without a checkpoint id finds it, without decoding it:
   * the turn path records where a run starts and ends, and needs nothing else of it.
   */
  headId(threadId: string, ns = ''): string | undefined {
    this.ensureOpen();
    try {
      return this.rows.headId.get(threadId, ns)?.checkpoint_id;
    } catch (error) {
      throw toStoreError(error, stateOf(this.db));
    }
  }

  /** @internal The row id of a checkpoint (`latest` when no id is given). */
  targetSeq(config: RunnableConfig): number | undefined {
    const { threadId, ns, checkpointId } = target(config);
    if (threadId === undefined) return undefined;
    const thread = this.rows.thread.get(threadId, ns)?.id;
    if (thread === undefined) return undefined;
    return checkpointId
      ? this.rows.byId.get(thread, checkpointId)?.seq
      : this.rows.latestSeq.get(thread)?.seq;
  }

  /** The parent's body, whose unchanged values a put inherits (none without a stored parent). */
  private parentBody(parentSeq: number | null): Body | undefined {
    if (parentSeq === null) return undefined;
    const recent = this.recentBodies.get(parentSeq);
    if (recent) return recent;
    const packed = this.rows.bodyOf.get(parentSeq)?.body;
    return packed ? parseBody(packed, parentSeq).body : undefined;
  }

  private withEncoder(
    threadId: string,
    ns: string,
    save: (encoder: Encoder) => Promise<void>,
  ): Promise<void> {
    return withReuse(this.serde, this.threadIds, this.blobs, threadId, ns, save);
  }

  private ensureOpen(): void {
    if (!this.db.open) throw new StoreError('closed', 'the store is closed');
  }

  /** Every public method runs here: damage and SQLite failures leave as `StoreError`s. */
  private async guard<T>(threadId: string | undefined, ns: string, fn: () => Promise<T>): Promise<T> {
    this.ensureOpen();
    try {
      return await fn();
    } catch (error) {
      throw await this.mapError(error, threadId, ns);
    }
  }

  private async mapError(error: unknown, threadId: string | undefined, ns: string): Promise<unknown> {
    if (!(error instanceof DamageError)) return toStoreError(error, stateOf(this.db));
    const sessionId = threadId ?? '(unknown)';
    return corruptRecordError(error, {
      file: stateOf(this.db).file,
      sessionId,
      ns,
      checkpointIdOf: (seq) => this.rows.idOfSeq.get(seq)?.checkpoint_id,
      lastGood: async () => (await this.checkThread(sessionId)).lastGood.get(ns)?.checkpointId,
    });
  }

  /** Inside a write transaction: the thread's row, created if missing. */
  private threadRow(threadId: string, ns: string): number {
    const epoch = writeEpoch(this.db);
    if (epoch !== this.cacheEpoch) {
      this.threadIds.clear();
      this.seqs.clear();
      this.cacheEpoch = epoch;
    }
    const key = threadKey(threadId, ns);
    const known = this.threadIds.get(key);
    if (known !== undefined) return known;
    const found = this.rows.thread.get(threadId, ns);
    const id = found ? found.id : Number(this.rows.insertThread.run(threadId, ns).lastInsertRowid);
    this.threadIds.set(key, id);
    return id;
  }

  /** Inside a write transaction, after `threadRow`: the row of a checkpoint id, creating an empty placeholder for one not put yet. */
  private seqOf(thread: number, checkpointId: string): number {
    const known = this.seqs.get(`${thread}\u0000${checkpointId}`);
    if (known !== undefined) return known;
    const seq =
      this.rows.seq.get(thread, checkpointId)?.seq ??
      Number(this.rows.placeholder.run(thread, checkpointId).lastInsertRowid);
    this.rememberSeq(thread, checkpointId, seq);
    return seq;
  }

  private rememberSeq(thread: number, checkpointId: string, seq: number): void {
    const key = `${thread}\u0000${checkpointId}`;
    this.seqs.delete(key);
    this.seqs.set(key, seq);
    if (this.seqs.size > 256) this.seqs.delete(this.seqs.keys().next().value as string);
  }
}
