import { contentKey, pack } from '@birdie/store/backend';
import { AIMessage } from '@langchain/core/messages';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPostgresStore } from '../src/index.js';

// Values are found by 8 bytes of their content hash. A row found by those bytes is the value only if the CRC-32 in
// its head matches too: another value under the same key (a collision, made here by hand) is never handed out.
const url = inject('postgresUrl');
const schema = `valuekeys_${process.pid}`;
let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

describe('8-byte value keys', () => {
  it('a row holding another value under the same key is not reused: the value gets a row without a key', async () => {
    const store = await openPostgresStore({ url, schema });
    try {
      const saver = store.checkpointer;
      const thread = { thread_id: 'keys', checkpoint_ns: '' };
      const [first, second] = [uuid6(0), uuid6(1)];
      await saver.put(
        { configurable: thread },
        { ...emptyCheckpoint(), id: first, channel_values: { note: 'start' }, channel_versions: { note: 1 } },
        { source: 'input', step: -1, parents: {} },
        { note: 1 },
      );
      const message = new AIMessage({ id: 'ai-1', content: 'the value that is stored '.repeat(10) });
      const [, json] = await saver.serde.dumpsTyped(message);
      const key = Buffer.from(contentKey(json), 'base64').readBigInt64BE(0).toString();
      const impostor = new AIMessage({ id: 'ai-2', content: 'another value under the same key '.repeat(10) });
      const [, other] = await saver.serde.dumpsTyped(impostor);
      await admin.query(
        `INSERT INTO ${schema}.cp_blobs (thread, key, data)
         SELECT id, $1, $2 FROM ${schema}.cp_threads WHERE thread_id = 'keys'`,
        [key, pack(other)],
      );

      await saver.put(
        { configurable: { ...thread, checkpoint_id: first } },
        {
          ...emptyCheckpoint(),
          id: second,
          channel_values: { messages: [message] },
          channel_versions: { messages: 2 },
        },
        { source: 'loop', step: 0, parents: {} },
        { messages: 2 },
      );
      const tuple = await saver.getTuple({ configurable: thread });
      const stored = tuple?.checkpoint.channel_values.messages as AIMessage[];
      expect(stored.map((m) => [m.id, m.content])).toEqual([['ai-1', message.content]]);
      const { rows } = await admin.query<{ keyed: string; unkeyed: string }>(
        `SELECT count(key) AS keyed, count(*) FILTER (WHERE key IS NULL) AS unkeyed FROM ${schema}.cp_blobs`,
      );
      expect(rows[0]).toEqual({ keyed: '1', unkeyed: '1' });
    } finally {
      await store.close();
    }
  });
});
