import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { createAgent, MESSAGE_OVERHEAD_TOKENS, SUMMARY_HEADER, tokenEstimator } from '../src/index.js';
import { type ChatRequest, fakeOpenAI } from './fake-openai.js';
import { skillsFixture, toolSkill, useCleanups } from './helpers.js';

const cleanups = useCleanups();

const text = (content: unknown) =>
  typeof content === 'string' ? content : content == null ? '' : JSON.stringify(content);

/**
 * What a request the server received costs by birdie's own estimator (the one compaction counts with): each message's
 * text, its tool calls (name and JSON arguments) or its call id, plus the framing per message; each tool's JSON.
 */
async function requestTokens(request: ChatRequest): Promise<number> {
  const count = await tokenEstimator(`openai:${request.model}`);
  let tokens = 0;
  for (const m of request.messages) {
    let body = text(m.content);
    for (const call of m.tool_calls ?? []) body += `\n${call.function.name} ${call.function.arguments}`;
    if (m.tool_call_id) body += `\n${m.tool_call_id}`;
    tokens += count.text(body) + MESSAGE_OVERHEAD_TOKENS;
  }
  for (const tool of request.tools ?? []) tokens += count.text(JSON.stringify(tool));
  return tokens;
}

describe('a long session against an OpenAI-compatible server that records requests', () => {
  it('300 turns with 2 KB tool results and context_window 8000 never send a request above the budget', async () => {
    let turn = 0;
    const server = await fakeOpenAI(cleanups, (request) => {
      const last = request.messages.at(-1);
      if (request.messages.some((m) => m.role === 'user' && text(m.content).startsWith(SUMMARY_HEADER)))
        return { text: `Summary: the user fetched pages 1 to ${turn}.` };
      if (last?.role === 'user') {
        turn += 1;
        return { call: { name: 'fetch_page', args: { page: String(turn) } } };
      }
      return { text: `Page ${turn} fetched.` };
    });
    const fx = await skillsFixture({
      'pages/SKILL.md': toolSkill('pages', [
        {
          name: 'fetch_page',
          entrypoint: 'bash:printf "page %s\\n" {page}; yes "lorem ipsum dolor sit amet" | head -c 2048',
          schema:
            'schema:\n  type: object\n  properties:\n    page:\n      type: string\n  required: [page]\n',
        },
      ]),
    });
    const store = openStore({ file: join(fx.dir.path, 'birdie.db') });
    const agent = createAgent({
      model: server.model('gpt-4o-mini'),
      registry: fx.registry,
      policy: fx.policy,
      checkpointer: store.checkpointer,
      options: { cwd: fx.dir.path, contextWindow: 8000 },
    });
    cleanups.push(async () => {
      await agent.close();
      await store.close();
      await fx.dir.cleanup();
    });

    for (let i = 1; i <= 300; i += 1) await agent.invoke(`fetch page ${i}`, { threadId: 's1' });

    const conversation = server.requests.filter(
      (r) => !r.messages.some((m) => text(m.content).startsWith(SUMMARY_HEADER)),
    );
    expect(conversation.length).toBe(600);
    const summaries = server.requests.length - conversation.length;
    expect(summaries).toBeGreaterThan(10);
    // gpt-4o-mini's profile allows long answers, so a quarter of the window is kept for the answer.
    let largest = 0;
    for (const request of server.requests) largest = Math.max(largest, await requestTokens(request));
    expect(largest).toBeLessThanOrEqual(8000 - 2000);
    // The store kept everything.
    const state = await agent.getState('s1');
    expect(state.messages.length).toBe(1200);
    // A summary whose transcript does not fit one request is folded over several requests.
    expect(state.compactions.length).toBeGreaterThan(5);
    expect(state.compactions.length).toBeLessThanOrEqual(summaries);
  }, 240_000);
});
