import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
} from '@langchain/langgraph';
import { type Db, immediate } from '../db.js';
import { StoreError } from '../errors.js';
import { scrubSecrets } from '../secrets.js';
import { BlobStore, MissingBlobError } from './blobs.js';
import { Encoder, type Ref, resolveRef } from './codec.js';
import { packText } from './compress.js';
import { deltaHistory, HistoryCache } from './history.js';
import { SPECIAL_WRITE_INDEX } from './order.js';
import { type Body, parseBody, parseRecord, toTuple, type WritesRecord } from './read.js';
import { type CheckpointRow, prepareRows, type Rows, SELECT_CHECKPOINT } from './rows.js';

type ChannelVersions = Parameters<BaseCheckpointSaver['put']>[3];
type PendingWrite = Parameters<BaseCheckpointSaver['putWrites']>[1][number];
type ListOptions = NonNullable<Parameters<BaseCheckpointSaver['list']>[1]>;
export type DeltaChannelHistory = Awaited<ReturnType<BaseCheckpointSaver['getDeltaChannelHistory']>>[string];

/**
 * LangGraph checkpointer over the store's SQLite file. Message lists are stored element by
 * element and content-addressed, checkpoint bodies and writes are dictionary-deflated, and
 * `getDeltaChannelHistory` walks ancestors with one recursive query. See the README.
 */
export class BirdieCheckpointer extends BaseCheckpointSaver {
  /** @internal */
  readonly rows: Rows;
  /** @internal */
  readonly blobs: BlobStore;
  private readonly histories = new HistoryCache();
  /** Thread rows seen by this process; only a hint for skipping serialisation, never trusted for writes. */
  private readonly threadIds = new Map<string, number>();
  /** Bodies of recent puts: the next put inherits unchanged values from its parent, usually the last one. */
  private readonly recentBodies = new Map<number, Body>();

  constructor(private readonly db: Db) {
    super();
    this.rows = prepareRows(db);
    this.blobs = new BlobStore(db, this.serde);
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    this.ensureOpen();
    const { threadId, ns, checkpointId } = target(config);
    if (threadId === undefined) return undefined;
    const thread = this.rows.thread.get(threadId, ns)?.id;
    if (thread === undefined) return undefined;
    const row = checkpointId ? this.rows.byId.get(thread, checkpointId) : this.rows.latest.get(thread);
    return row ? toTuple(this, row) : undefined;
  }

  override async *list(config: RunnableConfig, options: ListOptions = {}): AsyncGenerator<CheckpointTuple> {
    this.ensureOpen();
    const { threadId, checkpointId } = target(config);
    const ns = config.configurable?.checkpoint_ns as string | undefined;
    const where = ['c.body IS NOT NULL'];
    const params: unknown[] = [];
    if (threadId !== undefined) where.push('t.thread_id = ?') && params.push(threadId);
    if (ns !== undefined) where.push('t.ns = ?') && params.push(ns);
    if (checkpointId) where.push('c.checkpoint_id = ?') && params.push(checkpointId);
    const before = options.before?.configurable?.checkpoint_id as string | undefined;
    if (before) where.push('c.checkpoint_id < ?') && params.push(before);
    const filter = options.filter && Object.keys(options.filter).length > 0 ? options.filter : undefined;
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    const sqlLimit = filter === undefined && Number.isFinite(remaining) ? ' LIMIT ?' : '';
    if (sqlLimit) params.push(Math.max(0, Math.floor(remaining)));
    const rows = this.db
      .prepare<unknown[], CheckpointRow>(
        `${SELECT_CHECKPOINT} WHERE ${where.join(' AND ')} ORDER BY c.checkpoint_id DESC${sqlLimit}`,
      )
      .all(...params);
    for (const row of rows) {
      if (remaining <= 0) return;
      const tuple = await toTuple(this, row);
      if (filter && !matches(tuple.metadata, filter)) continue;
      remaining -= 1;
      yield tuple;
    }
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    this.ensureOpen();
    const threadId = config.configurable?.thread_id as string | undefined;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    if (threadId === undefined) throw missing('thread_id', 'put a checkpoint');
    const parentId = config.configurable?.checkpoint_id as string | undefined;
    const [, metadataJson] = await this.serde.dumpsTyped(scrubSecrets(metadata));
    await this.withEncoder(threadId, ns, async (encoder) => {
      const drafts: Record<string, Ref> = {};
      const values = checkpoint.channel_values ?? {};
      // Only channels with a new version are serialised; the others keep the parent's stored value.
      for (const channel of Object.keys(values)) {
        if (Object.hasOwn(newVersions, channel)) drafts[channel] = await encoder.encode(values[channel]);
      }
      // Caches learn about rows only after the commit: a rolled-back attempt's ids get reused.
      const saved = immediate(this.db, () => {
        const thread = this.threadRow(threadId, ns);
        const ids = this.blobs.store(thread, encoder.blobs);
        const parentSeq = parentId ? this.seqOf(thread, parentId) : null;
        const vals = this.inherit(parentSeq, checkpoint.channel_versions, newVersions);
        for (const channel of Object.keys(drafts)) vals[channel] = resolveRef(drafts[channel]!, ids);
        const body: Body = {
          v: checkpoint.v,
          ts: checkpoint.ts,
          cv: checkpoint.channel_versions,
          vs: checkpoint.versions_seen,
          vals,
        };
        // Metadata is the serializer's own JSON, appended after a newline (JSON text never has a raw one).
        const text = `${JSON.stringify(body)}\n${Buffer.from(metadataJson).toString('utf8')}`;
        const seq = this.seqOf(thread, checkpoint.id);
        this.rows.fill.run(parentSeq, channelList(Object.keys(vals)), packText(text), seq);
        return { thread, ids, seq, body };
      });
      this.blobs.remember(saved.thread, encoder.blobs, saved.ids);
      // A filled placeholder or a re-put changes what walks from its descendants find.
      this.histories.invalidateAfter(saved.seq);
      this.recentBodies.delete(saved.seq);
      this.recentBodies.set(saved.seq, saved.body);
      if (this.recentBodies.size > 8) this.recentBodies.delete(this.recentBodies.keys().next().value!);
    });
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath = '',
  ): Promise<void> {
    this.ensureOpen();
    const threadId = config.configurable?.thread_id as string | undefined;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const checkpointId = config.configurable?.checkpoint_id as string | undefined;
    if (threadId === undefined) throw missing('thread_id', 'put writes');
    if (!checkpointId) throw missing('checkpoint_id', 'put writes');
    await this.withEncoder(threadId, ns, async (encoder) => {
      const drafts: [number, string, Ref][] = [];
      for (const [i, [channel, value]] of writes.entries()) {
        drafts.push([SPECIAL_WRITE_INDEX[channel] ?? i, channel, await encoder.encode(value)]);
      }
      const saved = immediate(this.db, () => {
        const thread = this.threadRow(threadId, ns);
        const seq = this.seqOf(thread, checkpointId);
        const ids = this.blobs.store(thread, encoder.blobs);
        const existing = this.rows.writeRecord.get(seq, taskId);
        const record: WritesRecord = existing ? parseRecord(existing.writes) : { p: taskPath, w: [] };
        const byIdx = new Map(record.w.map((w) => [w[0], w]));
        for (const [idx, channel, ref] of drafts) {
          // A regular write is stored once (retries are no-ops); special writes replace.
          if (idx >= 0 && byIdx.has(idx)) continue;
          byIdx.set(idx, [idx, channel, resolveRef(ref, ids)]);
        }
        record.w = [...byIdx.values()].sort((a, b) => a[0] - b[0]);
        this.rows.putWrite.run(seq, taskId, packText(JSON.stringify(record)));
        return { thread, ids, seq };
      });
      this.blobs.remember(saved.thread, encoder.blobs, saved.ids);
      this.histories.invalidateAfter(saved.seq);
    });
  }

  override async deleteThread(threadId: string): Promise<void> {
    this.ensureOpen();
    immediate(this.db, () => this.deleteThreadSync(threadId));
  }

  /** @internal Deletes inside the caller's transaction (sessions.delete). */
  deleteThreadSync(threadId: string): void {
    const threads = this.rows.threadsOf.all(threadId).map((r) => r.id);
    this.rows.deleteWrites.run(threadId);
    this.rows.deleteCheckpoints.run(threadId);
    this.rows.deleteBlobs.run(threadId);
    this.rows.deleteThreads.run(threadId);
    this.blobs.forgetThreads(threads);
    this.histories.clear();
    this.recentBodies.clear();
    this.threadIds.clear();
  }

  override async getDeltaChannelHistory(options: {
    config: RunnableConfig;
    channels: string[];
  }): Promise<Record<string, DeltaChannelHistory>> {
    this.ensureOpen();
    return deltaHistory(this, this.histories, options.config, options.channels);
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

  /**
   * Refs of the parent's stored values whose channel version did not change: same branch,
   * same version, same value. Keyed by parent rather than by version, so forks never mix.
   */
  private inherit(parentSeq: number | null, versions: ChannelVersions, changed: ChannelVersions) {
    const vals: Record<string, Ref> = {};
    if (parentSeq === null) return vals;
    let parent = this.recentBodies.get(parentSeq);
    if (!parent) {
      const packed = this.rows.bodyOf.get(parentSeq)?.body;
      if (!packed) return vals;
      parent = parseBody(packed).body;
    }
    for (const [channel, ref] of Object.entries(parent.vals)) {
      if (
        !Object.hasOwn(changed, channel) &&
        versions[channel] !== undefined &&
        parent.cv[channel] === versions[channel]
      ) {
        vals[channel] = ref;
      }
    }
    return vals;
  }

  /**
   * Runs encode-then-commit with an encoder that may skip serialising values this process
   * knows the thread already stores. If one vanished meanwhile (another process deleted and
   * recreated the thread), the commit throws MissingBlobError and it runs again without reuse.
   */
  private async withEncoder(threadId: string, ns: string, save: (encoder: Encoder) => Promise<void>) {
    const thread = this.threadIds.get(threadKey(threadId, ns));
    try {
      await save(new Encoder(this.serde, (key) => this.blobs.has(thread, key)));
    } catch (error) {
      if (!(error instanceof MissingBlobError)) throw error;
      this.threadIds.delete(threadKey(threadId, ns));
      await save(new Encoder(this.serde));
    }
  }

  private ensureOpen(): void {
    if (!this.db.open) throw new StoreError('closed', 'the store is closed');
  }

  private threadRow(threadId: string, ns: string): number {
    const found = this.rows.thread.get(threadId, ns);
    const id = found ? found.id : Number(this.rows.insertThread.run(threadId, ns).lastInsertRowid);
    this.threadIds.set(threadKey(threadId, ns), id);
    return id;
  }

  /** The row of a checkpoint id, creating an empty placeholder for one not put yet. */
  private seqOf(thread: number, checkpointId: string): number {
    const found = this.rows.seq.get(thread, checkpointId);
    if (found) return found.seq;
    return Number(this.rows.placeholder.run(thread, checkpointId).lastInsertRowid);
  }
}

/** `\nch1\nch2\n`: lets the ancestor walk test "has a stored value" without inflating bodies. */
function channelList(channels: string[]): string {
  return `\n${channels.join('\n')}\n`;
}

function threadKey(threadId: string, ns: string): string {
  return `${ns}\u0000${threadId}`;
}

function target(config: RunnableConfig) {
  const c = config.configurable ?? {};
  return {
    threadId: c.thread_id as string | undefined,
    ns: (c.checkpoint_ns as string | undefined) ?? '',
    checkpointId: (c.checkpoint_id ?? c.thread_ts) as string | undefined,
  };
}

function matches(metadata: unknown, filter: Record<string, unknown>): boolean {
  const md = (metadata ?? {}) as Record<string, unknown>;
  return Object.entries(filter).every(([k, v]) =>
    typeof v === 'object' && v !== null ? JSON.stringify(md[k]) === JSON.stringify(v) : md[k] === v,
  );
}

function missing(field: string, action: string): StoreError {
  return new StoreError(
    'invalid-argument',
    `cannot ${action}: config.configurable.${field} is required (the thread is the session id)`,
  );
}
