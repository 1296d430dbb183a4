import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { deltaChannelHistoryTests, validate } from '@langchain/langgraph-checkpoint-validation';
import { openStore, type SqliteStore as Store } from '../src/index.js';

// LangGraph's own checkpointer conformance suite, plus its opt-in getDeltaChannelHistory specs,
// against a fresh store file per spec group.
const open = new Map<BaseCheckpointSaver, { store: Store; dir: string }>();

const initializer = {
  checkpointerName: '@birdie/store',
  createCheckpointer() {
    const dir = mkdtempSync(join(tmpdir(), 'birdie-store-conformance-'));
    const store = openStore({ home: dir });
    open.set(store.checkpointer, { store, dir });
    return store.checkpointer as any;
  },
  destroyCheckpointer(checkpointer: BaseCheckpointSaver) {
    const entry = open.get(checkpointer);
    open.delete(checkpointer);
    entry?.store.close();
    if (entry) rmSync(entry.dir, { recursive: true, force: true });
  },
};

validate(initializer);
deltaChannelHistoryTests(initializer);
