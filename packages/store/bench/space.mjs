// Where the bytes go: runs N turns through the birdie checkpointer and prints per-table sizes (dbstat).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { MessagesDeltaValue, MessagesValue } from '@langchain/langgraph';
import Database from 'better-sqlite3';
import { openStore } from '../dist/index.js';
import { buildGraph, rawBytes, text } from './graph.mjs';

const turns = Number(process.argv[2] ?? 200);
const store = openStore({ home: mkdtempSync(join(tmpdir(), 'birdie-space-')) });
const app = buildGraph(store.checkpointer, process.argv[3] === 'stock' ? MessagesValue : MessagesDeltaValue);
let out;
for (let i = 0; i < turns; i++)
  out = await app.invoke(
    { messages: [new HumanMessage(text(200))] },
    { configurable: { thread_id: '2026-01-01_1' } },
  );
await store.close();
const db = new Database(store.file);
db.pragma('wal_checkpoint(TRUNCATE)');
const rows = db
  .prepare(
    'SELECT name, SUM(pgsize) AS bytes, SUM(payload) AS payload, SUM(ncell) AS cells FROM dbstat GROUP BY name ORDER BY bytes DESC',
  )
  .all();
const raw = rawBytes(out.messages);
console.log(`raw ${raw}`);
for (const r of rows)
  console.log(
    `${r.name.padEnd(40)} ${String(r.bytes).padStart(9)} ${(r.bytes / raw).toFixed(2)}x payload ${r.payload} cells ${r.cells}`,
  );
console.log(
  db.prepare('SELECT COUNT(*) n, SUM(length(body)) b, SUM(length(chans)) c FROM cp_checkpoints').get(),
);
console.log(
  db.prepare('SELECT COUNT(*) n, SUM(length(writes)) w, SUM(length(task_id)) t FROM cp_writes').get(),
);
console.log(db.prepare('SELECT COUNT(*) n, SUM(length(data)) d FROM cp_blobs').get());
