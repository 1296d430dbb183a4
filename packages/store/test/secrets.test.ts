import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { unpack } from '../src/checkpointer/compress.js';
import { openStore } from '../src/index.js';
import { chatGraph, tempHome } from './helpers.js';

const homes: ReturnType<typeof tempHome>[] = [];
afterEach(async () => {
  for (const h of homes.splice(0)) h.cleanup();
});

const SECRETS = {
  openai: 'sk-proj-SECRETopenaiKEY0123456789abcdefXYZ',
  anthropic: 'sk-ant-api03-SECRETanthropic0123456789abcdef',
  token: 'tok-SECRET-plain-token-value-42',
  password: 'hunter2-SECRET-password',
  innocent: 'sk-SECRETunderAnInnocentName0123456789',
};

/** Every stored byte of the store: the database, its WAL and shared-memory files. */
function storedBytes(dir: string): string {
  return readdirSync(dir)
    .filter((f) => f.startsWith('birdie.db'))
    .map((f) => readFileSync(join(dir, f)).toString('latin1'))
    .join('\n');
}

describe('secrets', () => {
  it('never reach the database file, whatever the config and metadata of a whole session carry', async () => {
    const home = tempHome();
    homes.push(home);
    const store = openStore({ home: home.dir });
    const session = await store.sessions.create('alice');
    const graph = chatGraph(store.checkpointer);
    const config = {
      configurable: {
        thread_id: session.id,
        openai_api_key: SECRETS.openai,
        apiKey: SECRETS.anthropic,
        provider: { access_token: SECRETS.token },
      },
      metadata: {
        api_key: SECRETS.openai,
        password: SECRETS.password,
        note: SECRETS.innocent,
        user: 'alice',
      },
    };
    for (let turn = 1; turn <= 6; turn += 1) {
      await graph.invoke({ messages: [new HumanMessage(`question ${turn}`)] }, config);
    }
    // A caller that puts secrets into checkpoint metadata directly, nested and under innocent names.
    const latest = (await store.checkpointer.getTuple({ configurable: { thread_id: session.id } }))!;
    await store.checkpointer.put(
      latest.config,
      { ...latest.checkpoint, id: '1f000000-0000-6000-8000-000000000001' },
      {
        ...latest.metadata!,
        source: 'update',
        configurable: { anthropic_api_key: SECRETS.anthropic, thread_id: session.id },
        headers: { Authorization: `Bearer ${SECRETS.token}` },
        clientSecret: SECRETS.password,
        comment: `key is ${SECRETS.innocent}`,
        writer: 'alice',
      } as never,
      {},
    );

    // Logically: nothing stored mentions a secret, and ordinary metadata survives.
    const everything: unknown[] = [];
    for await (const tuple of store.checkpointer.list({ configurable: { thread_id: session.id } })) {
      everything.push(tuple);
    }
    const dump = JSON.stringify(everything);
    for (const secret of Object.values(SECRETS)) expect(dump).not.toContain(secret);
    expect(dump).not.toContain('SECRET');
    const byId = (id: string) =>
      everything.find((t) => (t as { checkpoint: { id: string } }).checkpoint.id === id) as {
        metadata: Record<string, unknown>;
      };
    const newest = byId('1f000000-0000-6000-8000-000000000001');
    expect(byId(latest.checkpoint.id).metadata).toMatchObject({ source: 'loop' });
    expect(byId(latest.checkpoint.id).metadata).not.toHaveProperty('api_key');
    expect(byId(latest.checkpoint.id).metadata).not.toHaveProperty('password');
    expect(newest.metadata).toMatchObject({
      source: 'update',
      writer: 'alice',
      comment: 'key is [redacted]',
    });
    expect(newest.metadata.configurable).toEqual({ thread_id: session.id });
    expect(newest.metadata.headers).toEqual({});

    // Physically: the file bytes (database, WAL, shm) hold no secret, compressed parts included.
    await store.close();
    const bytes = storedBytes(home.dir);
    for (const secret of Object.values(SECRETS)) expect(bytes).not.toContain(secret);
    const records = inflateAll(home.dir).join('\n');
    expect(records).toContain('question 6');
    for (const secret of Object.values(SECRETS)) expect(records).not.toContain(secret);
  });
});

/** Every stored record, decompressed: a secret inside deflate output would escape a byte grep. */
function inflateAll(dir: string): string[] {
  const db = new Database(join(dir, 'birdie.db'), { readonly: true });
  const rows = [
    ...db.prepare('SELECT body AS b FROM cp_checkpoints WHERE body IS NOT NULL').all(),
    ...db.prepare('SELECT writes AS b FROM cp_writes').all(),
    ...db.prepare('SELECT data AS b FROM cp_blobs').all(),
  ] as { b: Buffer }[];
  db.close();
  return rows.map(({ b }) => unpack(b).toString('utf8'));
}
