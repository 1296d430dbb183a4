// birdie's side of framework.mjs's round trips (also what count-statements.mjs counts): the graph with one tool skill,
// and a turn on the SQLite store as @birdie/runtime's turn path makes it; and LangChain's side, the baseline.
import { langchainEchoTool } from './peers/agents.mjs';

/** birdie's graph with the tool skill only (no corpus skills), as `createAgent` gets the one tool. */
export async function birdieGraph(model, toolDir, checkpointer) {
  const { loadRegistry, SkillPolicy } = await import('@birdie/registry');
  const { createAgent } = await import('@birdie/graph');
  const registry = await loadRegistry({ dirs: [toolDir] });
  const policy = new SkillPolicy(registry);
  return createAgent({ model, registry, policy, checkpointer });
}

export async function stream(agent, threadId, turn = {}) {
  for await (const event of agent.stream('do the thing', { threadId, ...turn })) {
    if (event.type === 'error') throw new Error(`birdie: ${event.error.message}`);
  }
}

/**
 * A birdie turn on its store as the turn path makes it (@birdie/runtime's leasedTurn): lease, thread head before,
 * run log start, journal, memory, the graph, thread head after, then the run log's finish with the session's totals
 * and the release in one transaction.
 */
export function storeTurn(store, agent) {
  return async (session) => {
    const lease = await store.leases.acquire(session.id, { waitMs: 0 });
    try {
      // The thread's head before and after, as the turn path reads it (the checkpointer's headId, no decoding).
      const before = store.checkpointer.headId(session.id);
      const runId = await store.runs.start({
        sessionId: session.id,
        userId: 'bench',
        model: 'fake',
        ...(before ? { startCheckpointId: before } : {}),
      });
      const journal = await store.runs.journal(runId);
      const memory = (await store.memory.list('bench')).map((m) => ({
        id: String(m.id),
        content: m.content,
      }));
      await stream(agent, session.id, { journal, memory });
      // The run's end, the session's totals and the lease's release in one commit, as the turn path ends a turn.
      await store.runs.finish(runId, {
        status: 'ok',
        inputTokens: 0,
        outputTokens: 0,
        endCheckpointId: store.checkpointer.headId(session.id),
        sessionTurn: { inputTokens: 0, outputTokens: 0 },
        release: lease,
      });
    } finally {
      await lease.release();
    }
  };
}

/** LangChain's createAgent with the same tool (a `tool()` around the same function). */
export async function langchainAgent(model, checkpointer) {
  const { createAgent } = await import('langchain');
  const agent = createAgent({ model, tools: [await langchainEchoTool()], checkpointer });
  return async (threadId) => {
    await agent.invoke(
      { messages: [{ role: 'user', content: 'do the thing' }] },
      { configurable: { thread_id: threadId } },
    );
  };
}
