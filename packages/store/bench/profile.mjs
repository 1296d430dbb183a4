import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesDeltaValue, START, StateGraph, StateSchema, MemorySaver } from '@langchain/langgraph';
import { openStore } from '../dist/index.js';
const store = openStore({ home: mkdtempSync(join(tmpdir(), 'prof-')) });
const saver = process.argv[2] === 'mem' ? new MemorySaver() : store.checkpointer;
const times = {};
for (const name of ['getTuple', 'put', 'putWrites', 'getDeltaChannelHistory']) {
  const o = saver[name].bind(saver);
  saver[name] = async (...a) => {
    const t = process.cpuUsage();
    try {
      return await o(...a);
    } finally {
      const u = process.cpuUsage(t);
      const d = (u.user + u.system) / 1000;
      times[name] ??= [0, 0];
      times[name][0] += d;
      times[name][1]++;
    }
  };
}
const app = new StateGraph(new StateSchema({ messages: MessagesDeltaValue }))
  .addNode('agent', (s) => ({
    messages: [new AIMessage({ id: `a${s.messages.length}`, content: 'x'.repeat(200) })],
  }))
  .addEdge(START, 'agent')
  .addEdge('agent', END)
  .compile({ checkpointer: saver });
const cfg = { configurable: { thread_id: 't' } };
for (let i = 0; i < 50; i++) await app.invoke({ messages: [new HumanMessage('y'.repeat(200))] }, cfg);
for (const k in times) times[k] = [0, 0];
const t = performance.now();
for (let i = 0; i < 50; i++) await app.invoke({ messages: [new HumanMessage('y'.repeat(200))] }, cfg);
console.log(
  'per turn',
  ((performance.now() - t) / 50).toFixed(2),
  Object.fromEntries(
    Object.entries(times).map(([k, [ms, n]]) => [k, `${(ms / 50).toFixed(2)}ms/turn n=${n}`]),
  ),
);
