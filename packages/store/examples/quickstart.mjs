// node examples/quickstart.mjs   (after `pnpm build`)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStoreError, openStore } from '@birdie/store';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesDeltaValue, START, StateGraph, StateSchema } from '@langchain/langgraph';

const home = mkdtempSync(join(tmpdir(), 'birdie-'));
const store = openStore({ home });
const session = await store.sessions.create('alice', {
  title: 'first steps',
  now: new Date(2026, 10, 21, 9, 30),
});
console.log('session', session.id, session.title);

await store.grants.set(session.id, 'alice', {
  enabled: ['web'],
  disabled: ['shell'],
  sources: { web: 'bundled:skills/web/SKILL.md' },
});
await store.memory.add('alice', 'prefers metric units');

// The graph's state uses the delta messages channel; the checkpointer is the store's.
const graph = new StateGraph(new StateSchema({ messages: MessagesDeltaValue }))
  .addNode('agent', (state) => ({ messages: [new AIMessage(`You said: ${state.messages.at(-1).content}`)] }))
  .addEdge(START, 'agent')
  .addEdge('agent', END)
  .compile({ checkpointer: store.checkpointer });

// One writer per session: a turn holds the session's lease.
const lease = await store.leases.acquire(session.id, { waitMs: 0 });
const run = await store.runs.start({ sessionId: session.id, userId: 'alice', model: 'scripted' });
const journal = await store.runs.journal(run);
const out = await graph.invoke(
  { messages: [new HumanMessage('hello')] },
  { configurable: { thread_id: session.id } },
);
await journal.started({ id: 'call_1', name: 'fetch', skill: 'web' }); // before the tool's process starts
await journal.finished({ id: 'call_1', ok: true, durationMs: 42, truncated: false });
await store.runs.finish(run, { status: 'ok', inputTokens: 12, outputTokens: 7 });
await store.sessions.recordTurn(session.id, 'alice', { inputTokens: 12, outputTokens: 7 });

// Another process (here: another open store) cannot take the session meanwhile.
const other = openStore({ home });
try {
  await other.leases.acquire(session.id);
} catch (error) {
  if (isStoreError(error, 'session-busy')) console.log('busy', error.message.replace(/since .*/, 'since …'));
}
await lease.release();
await other.close();

console.log(
  'messages',
  out.messages.map((m) => `${m.getType()}: ${m.content}`),
);
console.log('grants', await store.grants.get(session.id, 'alice'));
console.log(
  'memory',
  (await store.memory.list('alice')).map((m) => m.content),
);
const [logged] = await store.runs.list({ userId: 'alice', sessionId: session.id });
console.log(
  'run',
  logged.status,
  logged.model,
  logged.inputTokens,
  logged.outputTokens,
  logged.toolCalls.map((t) => `${t.name} ${t.status}`),
);
console.log('session turns', (await store.sessions.get(session.id, 'alice')).turns);

await store.trust.set('/home/alice/project', { digest: 'sha256:1f2e…', decision: 'trusted' });
console.log('trust', (await store.trust.get('/home/alice/project')).decision);

const report = await store.doctor();
console.log('doctor', report.ok, report.integrity, report.checked, report.advice);

for (const attempt of [
  () => store.sessions.get('../etc/passwd', 'alice'),
  () => store.sessions.delete(session.id, 'bob'),
]) {
  try {
    await attempt();
  } catch (error) {
    if (isStoreError(error)) console.log('rejected', error.code, error.message);
  }
}
await store.sessions.delete(session.id, 'alice');
console.log(
  'after delete',
  (await store.sessions.list('alice')).length,
  await store.checkpointer.getTuple({ configurable: { thread_id: session.id } }),
);
await store.close();
