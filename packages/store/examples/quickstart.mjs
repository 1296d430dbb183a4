// node examples/quickstart.mjs   (after `pnpm build`)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesDeltaValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { openStore, StoreError } from '../dist/index.js';

const store = openStore({ home: mkdtempSync(join(tmpdir(), 'birdie-')) });
const session = store.sessions.create('alice', { title: 'first steps', now: new Date(2026, 10, 21, 9, 30) });
console.log('session', session.id, session.title);

store.grants.set(session.id, { enabled: ['web'], disabled: ['shell'] });
store.memory.add('alice', 'prefers metric units');

// The graph's state uses the delta messages channel; the checkpointer is the store's.
const graph = new StateGraph(new StateSchema({ messages: MessagesDeltaValue }))
  .addNode('agent', (state) => ({ messages: [new AIMessage(`You said: ${state.messages.at(-1).content}`)] }))
  .addEdge(START, 'agent')
  .addEdge('agent', END)
  .compile({ checkpointer: store.checkpointer });

const run = store.runs.start({ sessionId: session.id, model: 'scripted' });
const out = await graph.invoke(
  { messages: [new HumanMessage('hello')] },
  { configurable: { thread_id: session.id } },
);
store.runs.toolCall(run, { name: 'fetch', skill: 'web', durationMs: 42, ok: true });
store.runs.finish(run, { status: 'ok', inputTokens: 12, outputTokens: 7 });
store.sessions.recordTurn(session.id, { inputTokens: 12, outputTokens: 7 });

console.log(
  'messages',
  out.messages.map((m) => `${m.getType()}: ${m.content}`),
);
console.log('grants', store.grants.get(session.id));
console.log(
  'memory',
  store.memory.list('alice').map((m) => m.content),
);
const [logged] = store.runs.list({ sessionId: session.id });
console.log(
  'run',
  logged.status,
  logged.model,
  logged.inputTokens,
  logged.outputTokens,
  logged.toolCalls.map((t) => t.name),
);
console.log('session turns', store.sessions.get(session.id).turns);

try {
  store.sessions.get('../etc/passwd');
} catch (error) {
  if (error instanceof StoreError) console.log('rejected', error.code, error.message);
}
store.sessions.delete(session.id);
console.log(
  'after delete',
  store.sessions.list('alice').length,
  await store.checkpointer.getTuple({ configurable: { thread_id: session.id } }),
);
store.close();
