// node examples/quickstart.mjs   (after `pnpm build`)
// Uses BIRDIE_DATABASE_URL if set; otherwise starts a throw-away PostgreSQL server (initdb + pg_ctl, the tests' helper).

import { isStoreError } from '@birdie/store';
import { openPostgresStore, postgresMigrationStatus } from '@birdie/store-postgres';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesDeltaValue, START, StateGraph, StateSchema } from '@langchain/langgraph';

// The throw-away server comes from the repository's test helpers, loaded only when no database is named.
const server = process.env.BIRDIE_DATABASE_URL
  ? undefined
  : await (await import('@birdie/test-utils')).startPostgres();
const url = process.env.BIRDIE_DATABASE_URL ?? server.url;
try {
  // Two workers (two open stores, as on two machines) on one database; migrations run on the first open.
  const worker1 = await openPostgresStore({ url, schema: 'birdie_example' });
  const worker2 = await openPostgresStore({ url, schema: 'birdie_example' });
  const status = await postgresMigrationStatus({ url, schema: 'birdie_example' });
  console.log('schema', status.schema, 'version', status.current, 'pending', status.pending);

  const session = await worker1.sessions.create('alice', {
    title: 'first steps',
    now: new Date(2026, 10, 21, 9, 30),
  });
  await worker1.grants.set(session.id, 'alice', { enabled: ['web'], disabled: [] });
  await worker1.memory.add('alice', 'prefers metric units');

  const graph = (store) =>
    new StateGraph(new StateSchema({ messages: MessagesDeltaValue }))
      .addNode('agent', (state) => ({
        messages: [new AIMessage(`You said: ${state.messages.at(-1).content}`)],
      }))
      .addEdge(START, 'agent')
      .addEdge('agent', END)
      .compile({ checkpointer: store.checkpointer });
  const config = { configurable: { thread_id: session.id } };

  // A turn on worker 1 holds the session's lease; worker 2 is refused meanwhile.
  const lease = await worker1.leases.acquire(session.id);
  const run = await worker1.runs.start({ sessionId: session.id, userId: 'alice', model: 'scripted' });
  const journal = await worker1.runs.journal(run);
  await journal.started({ id: 'call_1', name: 'fetch', skill: 'web' }); // committed before the tool starts
  await graph(worker1).invoke({ messages: [new HumanMessage('hello')] }, config);
  await journal.finished({ id: 'call_1', ok: true, durationMs: 42, truncated: false });
  await worker1.runs.finish(run, { status: 'ok', inputTokens: 12, outputTokens: 7 });
  try {
    await worker2.leases.acquire(session.id);
  } catch (error) {
    if (isStoreError(error, 'session-busy'))
      console.log('busy', error.message.replace(/since .*/, 'since …'));
  }
  await lease.release();

  // The next turn runs on worker 2: it sees everything worker 1 stored.
  const next = await worker2.leases.acquire(session.id);
  const out = await graph(worker2).invoke({ messages: [new HumanMessage('and again')] }, config);
  await next.release();
  console.log(
    'messages',
    out.messages.map((m) => `${m.getType()}: ${m.content}`),
  );
  console.log('grants', await worker2.grants.get(session.id, 'alice'));
  const [logged] = await worker2.runs.list({ userId: 'alice' });
  console.log(
    'run',
    logged.status,
    logged.toolCalls.map((t) => `${t.name} ${t.status}`),
  );
  const report = await worker2.doctor();
  console.log('doctor', report.ok, report.integrity, report.checked, report.advice);
  try {
    await worker2.sessions.get(session.id, 'bob');
  } catch (error) {
    if (isStoreError(error)) console.log('rejected', error.code, error.message);
  }
  await worker2.sessions.delete(session.id, 'alice');
  console.log('after delete', (await worker1.sessions.list('alice')).length);
  await worker1.close();
  await worker2.close();
} finally {
  await server?.stop();
}
