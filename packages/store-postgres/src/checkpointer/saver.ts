import {
  type Body,
  checkpointText,
  corruptRecordError,
  DamageError,
  type DeltaChannelHistory,
  draftValues,
  draftWrites,
  type Encoder,
  HistoryCache,
  inheritedVals,
  MessageSerde,
  mergeWrites,
  packText,
  parseBody,
  parseRecord,
  putTarget,
  rememberBody,
  scrubSecrets,
  target,
  threadKey,
  toTuple,
  type WritesRecord,
  withReuse,
  writesTarget,
} from '@birdie/store/backend';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
} from '@langchain/langgraph';
import type { Client, Db, Queryable } from '../db.js';
import { PgBlobStore } from './blobs.js';
import { deltaHistory } from './history.js';
import { listTuples } from './list.js';
import { type CheckpointRow, type ReadContext, readContext, SELECT_CHECKPOINT } from './read.js';
import { checkThread, type ThreadCheck } from './verify.js';
import { packTasks, unpackTasks } from './writes.js';

type ChannelVersions = Parameters<BaseCheckpointSaver['put']>[3];
type PendingWrite = Parameters<BaseCheckpointSaver['putWrites']>[1][number];
type ListOptions = NonNullable<Parameters<BaseCheckpointSaver['list']>[1]>;

export interface PostgresCheckpointerOptions {
  /** Called inside every write transaction with the thread id: throws to refuse the write (the lease fence). */
  fence?: (client: Client, threadId: string) => Promise<void>;
}

/**
 * LangGraph checkpointer over birdie's PostgreSQL tables: the SQLite store's design carried over. Message lists
 * are stored element by element and content-addressed (`cp_blobs`), only channels with a new version are
 * serialised, bodies and write records are dictionary-deflated with a CRC-32 each, and `getDeltaChannelHistory`
 * walks ancestors with a recursive query. A record that fails its checksum or does not decode is reported as
 * `StoreError('corrupt-record')` naming the session and the step; `list` skips such checkpoints.
 */
export class PostgresCheckpointer extends BaseCheckpointSaver {
  /** @internal */
  readonly blobs: PgBlobStore;
  private readonly histories = new HistoryCache();
  /** Thread rows seen by this process; only a hint for skipping serialisation, never trusted for writes. */
  private readonly threadIds = new Map<string, number>();
  /** Bodies of recent puts: the next put inherits unchanged values from its parent, usually the last one. */
  private readonly recentBodies = new Map<number, Body>();
  /** Puts under way in this process, by thread: a putWrites of the same thread waits for them (see putWrites). */
  private readonly puts = new Map<string, Set<Promise<unknown>>>();
  private readonly fence: (client: Client, threadId: string) => Promise<void>;

  constructor(
    private readonly db: Db,
    options: PostgresCheckpointerOptions = {},
  ) {
    super();
    // LangGraph's serializer, with messages revived directly: a resumed session decodes its whole history.
    this.serde = new MessageSerde(this.serde);
    this.blobs = new PgBlobStore(this.serde);
    this.fence = options.fence ?? (async () => {});
  }

  private ctx(q: Queryable = this.db): ReadContext {
    return readContext(this.serde, this.blobs, q);
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const { threadId, ns, checkpointId } = target(config);
    return this.guard(threadId, ns, async () => {
      if (threadId === undefined) return undefined;
      const params: unknown[] = [threadId, ns];
      if (checkpointId) params.push(checkpointId);
      const { rows } = await this.db.query<CheckpointRow>(
        `${SELECT_CHECKPOINT} WHERE t.thread_id = $1 AND t.ns = $2 AND c.body IS NOT NULL
         ${checkpointId ? 'AND c.checkpoint_id = cp_key($3)' : ''} ORDER BY c.checkpoint_id DESC LIMIT 1`,
        params,
      );
      return rows[0] ? toTuple(this.ctx(), rows[0]) : undefined;
    });
  }

  override async *list(config: RunnableConfig, options: ListOptions = {}): AsyncGenerator<CheckpointTuple> {
    this.db.ensureOpen();
    const { threadId } = target(config);
    try {
      yield* listTuples(this.ctx(), config, options);
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
    const saving = this.guard(threadId, ns, async () => {
      const [, metadataJson] = await this.serde.dumpsTyped(scrubSecrets(metadata));
      await this.putCheckpoint(threadId, ns, parentId, checkpoint, metadataJson, newVersions);
    });
    const key = threadKey(threadId, ns);
    const pending = this.puts.get(key) ?? new Set();
    this.puts.set(key, pending.add(saving));
    try {
      await saving;
    } finally {
      pending.delete(saving);
      if (pending.size === 0 && this.puts.get(key) === pending) this.puts.delete(key);
    }
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
      // Caches learn about rows only after the commit: a rolled-back attempt's ids are never used.
      const saved = await this.db.tx(async (client) => {
        await this.fence(client, threadId);
        const { thread, seq: parentSeq } = await this.locate(client, threadId, ns, parentId);
        const ids = await this.blobs.store(client, thread, encoder.blobs);
        const parent = await this.parentBody(client, parentSeq);
        const vals = inheritedVals(parent, checkpoint.channel_versions, newVersions);
        const { body, text } = checkpointText(checkpoint, vals, drafts, ids, metadataJson);
        const { rows } = await client.query<{ seq: number }>(
          `INSERT INTO cp_checkpoints (thread, checkpoint_id, parent_seq, body) VALUES ($1, cp_key($2), $3, $4)
           ON CONFLICT (thread, checkpoint_id) DO UPDATE SET parent_seq = excluded.parent_seq, body = excluded.body
           RETURNING seq`,
          [thread, checkpoint.id, parentSeq, packText(text)],
        );
        return { thread, ids, seq: rows[0]!.seq, body };
      });
      this.threadIds.set(threadKey(threadId, ns), saved.thread);
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
    // LangGraph runs the puts of a thread one after another, alongside the writes of their steps' tasks, so the
    // writes of a step often arrive before its put has started. Waiting for this process's puts of the thread (a few
    // rounds: each one finished starts the next) lets the writes find the step's row instead of placing an empty one
    // that the put then rewrites (a second row version and, when the page is full, new index entries). The put of
    // another process still meets the placeholder.
    for (let round = 0; round < 4; round += 1) {
      const pending = this.puts.get(threadKey(threadId, ns));
      if (!pending) break;
      await Promise.allSettled(pending);
    }
    await this.guard(threadId, ns, () =>
      this.withEncoder(threadId, ns, async (encoder) => {
        const drafts = await draftWrites(encoder, writes);
        const saved = await this.db.tx(async (client) => {
          await this.fence(client, threadId);
          // Values before the step's row: a put of the same step (LangGraph runs it alongside) stores the same
          // messages and then inserts that row, so taking them in the other order would deadlock the two.
          const { thread } = await this.locate(client, threadId, ns, undefined);
          const ids = await this.blobs.store(client, thread, encoder.blobs);
          const { seq } = await this.locate(client, threadId, ns, checkpointId);
          // The step's writes are one column of its row: the row lock orders the step's tasks.
          const existing = await client.query<{ writes: Buffer | null }>(
            'SELECT writes FROM cp_checkpoints WHERE seq = $1 FOR UPDATE',
            [seq],
          );
          const tasks = existing.rows[0]?.writes ? unpackTasks(existing.rows[0].writes, seq!) : [];
          const mine = tasks.find((t) => t.taskId === taskId);
          const record: WritesRecord = mine ? parseRecord(mine.record, seq!, taskId) : { p: taskPath, w: [] };
          const packed = packText(JSON.stringify(mergeWrites(record, drafts, ids)));
          const others = tasks.filter((t) => t.taskId !== taskId);
          // No indexed column changes: a HOT update, whose old version page pruning reclaims.
          await client.query('UPDATE cp_checkpoints SET writes = $2 WHERE seq = $1', [
            seq,
            packTasks([...others, { taskId, record: packed }]),
          ]);
          return { thread, ids, seq: seq! };
        });
        this.threadIds.set(threadKey(threadId, ns), saved.thread);
        this.blobs.remember(saved.thread, encoder.blobs, saved.ids);
        this.histories.invalidateAfter(saved.seq, threadId, ns);
      }),
    );
  }

  override async deleteThread(threadId: string): Promise<void> {
    await this.guard(undefined, '', () => this.db.tx((client) => this.deleteThreadIn(client, threadId)));
  }

  /** @internal Deletes inside the caller's transaction (sessions.delete). */
  async deleteThreadIn(client: Client, threadId: string): Promise<void> {
    const { rows } = await client.query<{ id: number }>('SELECT id FROM cp_threads WHERE thread_id = $1', [
      threadId,
    ]);
    const threads = rows.map((r) => r.id);
    if (threads.length > 0) {
      await client.query('DELETE FROM cp_checkpoints WHERE thread = ANY($1::bigint[])', [threads]);
      await client.query('DELETE FROM cp_blobs WHERE thread = ANY($1::bigint[])', [threads]);
      await client.query('DELETE FROM cp_threads WHERE id = ANY($1::bigint[])', [threads]);
    }
    await client.query('DELETE FROM cp_quarantine WHERE thread_id = $1', [threadId]);
    this.forgetCaches(threads);
  }

  /** @internal Drops every per-process cache that may name rows of `threads` (after a delete or a repair). */
  forgetCaches(threads: readonly number[]): void {
    this.blobs.forgetThreads(threads);
    this.histories.clear();
    this.recentBodies.clear();
    this.threadIds.clear();
  }

  /** @internal Decodes every record of a session (doctor, repair, and the last good step of an error). */
  checkThread(threadId: string): Promise<ThreadCheck> {
    return checkThread(this.ctx(), threadId);
  }

  override async getDeltaChannelHistory(options: {
    config: RunnableConfig;
    channels: string[];
  }): Promise<Record<string, DeltaChannelHistory>> {
    const { threadId, ns } = target(options.config);
    return this.guard(threadId, ns, async () =>
      deltaHistory(
        this.ctx(),
        this.histories,
        await this.targetSeq(options.config),
        options.channels,
        threadId,
        ns,
      ),
    );
  }

  /** The row id of a checkpoint (`latest` when no id is given). */
  private async targetSeq(config: RunnableConfig): Promise<number | undefined> {
    const { threadId, ns, checkpointId } = target(config);
    if (threadId === undefined) return undefined;
    const params: unknown[] = [threadId, ns];
    if (checkpointId) params.push(checkpointId);
    const { rows } = await this.db.query<{ seq: number }>(
      `SELECT c.seq FROM cp_checkpoints c JOIN cp_threads t ON t.id = c.thread
       WHERE t.thread_id = $1 AND t.ns = $2 AND c.body IS NOT NULL ${checkpointId ? 'AND c.checkpoint_id = cp_key($3)' : ''}
       ORDER BY c.checkpoint_id DESC LIMIT 1`,
      params,
    );
    return rows[0]?.seq;
  }

  /**
   * The thread's row (created if missing) and the row of `checkpointId` in it (an empty placeholder for an id not
   * put yet), in one query when both exist.
   */
  private async locate(
    client: Client,
    threadId: string,
    ns: string,
    checkpointId: string | undefined,
  ): Promise<{ thread: number; seq: number | null }> {
    const { rows } = await client.query<{ id: number; seq: number | null }>(
      `SELECT t.id, (SELECT seq FROM cp_checkpoints WHERE thread = t.id AND checkpoint_id = cp_key($3)) AS seq
       FROM cp_threads t WHERE t.thread_id = $1 AND t.ns = $2`,
      [threadId, ns, checkpointId ?? null],
    );
    let thread = rows[0]?.id;
    let seq = rows[0]?.seq ?? null;
    if (thread === undefined) {
      await client.query('INSERT INTO cp_threads (thread_id, ns) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
        threadId,
        ns,
      ]);
      const again = await client.query<{ id: number }>(
        'SELECT id FROM cp_threads WHERE thread_id = $1 AND ns = $2',
        [threadId, ns],
      );
      thread = again.rows[0]!.id;
    }
    if (checkpointId !== undefined && seq === null) {
      const placed = await client.query<{ seq: number }>(
        `INSERT INTO cp_checkpoints (thread, checkpoint_id) VALUES ($1, cp_key($2))
         ON CONFLICT (thread, checkpoint_id) DO UPDATE SET thread = excluded.thread RETURNING seq`,
        [thread, checkpointId],
      );
      seq = placed.rows[0]!.seq;
    }
    return { thread, seq };
  }

  /** The parent's body, whose unchanged values a put inherits (none without a stored parent). */
  private async parentBody(client: Client, parentSeq: number | null): Promise<Body | undefined> {
    if (parentSeq === null) return undefined;
    const recent = this.recentBodies.get(parentSeq);
    if (recent) return recent;
    const { rows } = await client.query<{ body: Buffer | null }>(
      'SELECT body FROM cp_checkpoints WHERE seq = $1',
      [parentSeq],
    );
    const packed = rows[0]?.body;
    return packed ? parseBody(packed, parentSeq).body : undefined;
  }

  private withEncoder(
    threadId: string,
    ns: string,
    save: (encoder: Encoder) => Promise<void>,
  ): Promise<void> {
    return withReuse(this.serde, this.threadIds, this.blobs, threadId, ns, save);
  }

  /** Every public method runs here: damage and server failures leave as `StoreError`s. */
  private async guard<T>(threadId: string | undefined, ns: string, fn: () => Promise<T>): Promise<T> {
    this.db.ensureOpen();
    try {
      return await fn();
    } catch (error) {
      throw await this.mapError(error, threadId, ns);
    }
  }

  private async mapError(error: unknown, threadId: string | undefined, ns: string): Promise<unknown> {
    if (!(error instanceof DamageError)) return this.db.map(error);
    const sessionId = threadId ?? '(unknown)';
    let checkpointId: string | undefined;
    if (error.where.seq !== undefined) {
      try {
        const { rows } = await this.db.query<{ checkpoint_id: string }>(
          'SELECT cp_key_text(checkpoint_id) AS checkpoint_id FROM cp_checkpoints WHERE seq = $1',
          [error.where.seq],
        );
        checkpointId = rows[0]?.checkpoint_id;
      } catch {
        // The server went away meanwhile: report the damage without the step's id.
      }
    }
    return corruptRecordError(error, {
      location: this.db.state.location,
      sessionId,
      ns,
      checkpointIdOf: () => checkpointId,
      lastGood: async () => (await this.checkThread(sessionId)).lastGood.get(ns)?.checkpointId,
    });
  }
}
