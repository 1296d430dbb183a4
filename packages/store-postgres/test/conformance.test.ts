import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { deltaChannelHistoryTests, validate } from '@langchain/langgraph-checkpoint-validation';
import pg from 'pg';
import { inject } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../src/index.js';

// LangGraph's own checkpointer conformance suite, plus its opt-in getDeltaChannelHistory specs, against the
// PostgreSQL checkpointer: a fresh schema per spec group on the run's server.
const open = new Map<BaseCheckpointSaver, { store: PostgresStore; schema: string }>();
let groups = 0;

const initializer = {
  checkpointerName: '@birdie/store-postgres',
  async createCheckpointer() {
    const schema = `conformance_${process.pid}_${++groups}`;
    const store = await openPostgresStore({ url: inject('postgresUrl'), schema, maxConnections: 4 });
    open.set(store.checkpointer, { store, schema });
    return store.checkpointer as any;
  },
  async destroyCheckpointer(checkpointer: BaseCheckpointSaver) {
    const entry = open.get(checkpointer);
    open.delete(checkpointer);
    if (!entry) return;
    await entry.store.close();
    const admin = new pg.Client({ connectionString: inject('postgresUrl') });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${entry.schema} CASCADE`);
    await admin.end();
  },
};

validate(initializer);
deltaChannelHistoryTests(initializer);
