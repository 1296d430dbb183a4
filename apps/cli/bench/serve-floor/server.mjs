// The server floor of `serve-load.mjs` (issue 36): the smallest HTTP server one would write around LangChain's
// `createAgent` + LangGraph's `SqliteSaver`, with the same scripted model `birdie serve` gets ($LLM_SCRIPT through
// @birdie/providers). Hono on @hono/node-server, a bearer token, `POST /v1/sessions` and `POST /v1/sessions/:id/turns`
// streaming the run's updates as server-sent events and ending with `{"type":"result","status":"ok"}`, as birdie's
// turn stream does. Prints `listening on <url>` once it listens. Env: BENCH_FLOOR_DB (the SQLite file),
// BENCH_FLOOR_TOKEN (the bearer token), LLM_SCRIPT.
import { randomUUID } from 'node:crypto';
import { createScriptedModel, loadScript } from '@birdie/providers';
import { serve } from '@hono/node-server';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { streamSSE } from 'hono/streaming';
import { createAgent } from 'langchain';

const model = createScriptedModel(await loadScript(process.env.LLM_SCRIPT));
const checkpointer = SqliteSaver.fromConnString(process.env.BENCH_FLOOR_DB);
const agent = createAgent({ model, tools: [], checkpointer });
const sessions = new Set();

const app = new Hono();
app.use('/v1/*', bearerAuth({ token: process.env.BENCH_FLOOR_TOKEN }));
app.post('/v1/sessions', (c) => {
  const id = randomUUID();
  sessions.add(id);
  return c.json({ id }, 201);
});
app.post('/v1/sessions/:id/turns', async (c) => {
  const id = c.req.param('id');
  if (!sessions.has(id)) return c.json({ error: 'not found' }, 404);
  const { prompt } = await c.req.json();
  return streamSSE(c, async (sse) => {
    let status = 'ok';
    try {
      const stream = await agent.stream(
        { messages: [{ role: 'user', content: prompt }] },
        { configurable: { thread_id: id }, streamMode: 'updates' },
      );
      for await (const update of stream) {
        for (const node of Object.values(update ?? {}))
          for (const message of node?.messages ?? [])
            await sse.writeSSE({
              data: JSON.stringify({ type: 'message', role: message.type, text: message.text }),
            });
      }
    } catch (error) {
      status = 'error';
      await sse.writeSSE({ data: JSON.stringify({ type: 'error', message: String(error) }) });
    }
    await sse.writeSSE({ data: JSON.stringify({ type: 'result', status }) });
  });
});

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}`);
});
process.on('SIGTERM', () => process.exit(0));
void server;
