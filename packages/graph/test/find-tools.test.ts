import { join } from 'node:path';
import { loadRegistry, SkillPolicy } from '@birdie/registry';
import { openStore } from '@birdie/store';
import { makeTempDir, writeTree } from '@birdie/test-utils';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { describe, expect, it } from 'vitest';
import { type AgentOptions, createAgent } from '../src/index.js';
import { type ChatRequest, fakeOpenAI, type Reply } from './fake-openai.js';
import { manySkills, REALISTIC_SKILLS, skillFiles, WRITTEN_QUERIES } from './fixtures/many-tools/tools.mjs';
import { collect, ofType, toolMessages, useCleanups } from './helpers.js';

const cleanups = useCleanups();

/** A session with `total` enabled tool skills (the hand-written ones and generated look-alikes). */
async function manyTools(total = 1000) {
  const dir = await makeTempDir('birdie-find-tools-');
  cleanups.push(() => dir.cleanup());
  await writeTree(dir.path, skillFiles(manySkills(total)));
  const registry = await loadRegistry({ dirs: [dir.path] });
  return { dir, registry, policy: new SkillPolicy(registry) };
}

type Fixture = Awaited<ReturnType<typeof manyTools>>;

/** Replies in order, then `done`; the server refuses more than 128 tools, as OpenAI does. */
async function server(replies: Reply[]) {
  let next = 0;
  return fakeOpenAI(cleanups, () => replies[next++] ?? { text: 'done' }, { maxTools: 128 });
}

function agentOver(
  fx: Fixture,
  model: BaseChatModel,
  options: AgentOptions = {},
  checkpointer?: ReturnType<typeof openStore>['checkpointer'],
) {
  const agent = createAgent({
    model,
    registry: fx.registry,
    policy: fx.policy,
    options: { cwd: fx.dir.path, ...options },
    ...(checkpointer ? { checkpointer } : {}),
  });
  cleanups.push(() => agent.close());
  return agent;
}

const toolNames = (request: ChatRequest | undefined) => (request?.tools ?? []).map((t) => t.function.name);
const find = (query: string, limit?: number): Reply => ({
  call: { name: 'find_tools', args: { query, ...(limit ? { limit } : {}) } },
});

describe('find_tools: many tools without binding them all', () => {
  it('works with 1,000 enabled tool skills against a server that refuses more than 128 tools', async () => {
    const fx = await manyTools();
    expect(fx.policy.allowedTools('s1').length).toBe(1000);
    const { requests, model } = await server([
      find('weather forecast for a city'),
      { call: { name: 'get_forecast', args: { input: 'Lisbon' } } },
      { text: 'Sunny.' },
    ]);
    const agent = agentOver(fx, model('gpt-test'));
    const events = await collect(agent.stream('will it rain in Lisbon this weekend?', { threadId: 's1' }));
    expect(ofType(events, 'error')).toEqual([]);
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
    expect(requests).toHaveLength(3);
    for (const r of requests) {
      expect(r.tools?.length ?? 0).toBeLessThanOrEqual(40);
      expect(JSON.stringify(r.tools).length).toBeLessThanOrEqual(12_000);
    }
    expect(toolNames(requests[0])).toContain('find_tools');
    expect(toolNames(requests[0])).not.toContain('get_forecast');
    // What find_tools returned is bound on the next call.
    expect(toolNames(requests[1])).toContain('get_forecast');
    const [found, ran] = await toolMessages(agent, 's1');
    expect(found?.content).toContain('get_forecast');
    expect(ran?.status).toBe('success');
    expect(ran?.content).toBe('done: Lisbon');
    // The events say which tools each call was given.
    const selections = ofType(events, 'tool-selection');
    expect(selections).toHaveLength(3);
    expect(selections[0]?.held).toBeGreaterThan(900);
    expect(selections[1]?.found).toContain('get_forecast');
    expect(selections[1]?.bound).toEqual(toolNames(requests[1]));
  });

  it('binds everything with toolBudget: false, which that server refuses (the limit is real)', async () => {
    const fx = await manyTools();
    const { requests, model } = await server([{ text: 'hi' }]);
    const agent = agentOver(fx, model('gpt-test'), { toolBudget: false });
    const events = await collect(agent.stream('hello', { threadId: 's1' }));
    expect(requests[0]?.tools?.length).toBe(1000);
    expect(ofType(events, 'done')[0]?.status).toBe('error');
    expect(ofType(events, 'error')[0]?.error.message).toMatch(/maximum length 128/);
  });

  it('finds the right tool in the first 5 results for 20 written queries (repository fixtures)', async () => {
    const fx = await manyTools();
    // Each query is the first step of its own thread: the model searches with the user's words.
    const { model } = await fakeOpenAI(
      cleanups,
      (request) => {
        const last = request.messages.at(-1);
        return last?.role === 'user' ? find(String(last.content)) : { text: 'done' };
      },
      { maxTools: 128 },
    );
    const agent = agentOver(fx, model('gpt-test'));
    const misses: string[] = [];
    for (const [i, q] of WRITTEN_QUERIES.entries()) {
      await collect(agent.stream(q.query, { threadId: `q${i}` }));
      const [result] = await toolMessages(agent, `q${i}`);
      const names = [...String(result?.content).matchAll(/^- (\S+)/gm)].map((m) => m[1]);
      expect(names.length).toBeLessThanOrEqual(5);
      if (!names.includes(q.tool)) misses.push(`${q.query} → ${q.tool}: got ${names.join(', ')}`);
    }
    expect(misses).toEqual([]);
  });
});

describe('find_tools: what it adds, and for how long', () => {
  it('grows the tool set across turns, and a resumed session (new agent, same database) keeps it', async () => {
    const fx = await manyTools(200);
    const store = openStore({ file: join(fx.dir.path, 'birdie.db') });
    cleanups.push(() => store.close());
    const first = await server([
      find('commit changes'),
      { text: 'ok' },
      find('send an email'),
      { text: 'ok' },
    ]);
    const agent = agentOver(fx, first.model('gpt-test'), {}, store.checkpointer);
    await collect(agent.stream('commit please', { threadId: 's1' }));
    await collect(agent.stream('and mail it', { threadId: 's1' }));
    const [, secondTurn, , afterSecondFind] = first.requests.map(toolNames);
    expect(secondTurn).toContain('git_commit');
    expect(secondTurn).not.toContain('send_email');
    expect(afterSecondFind).toEqual(expect.arrayContaining(['git_commit', 'send_email']));
    expect((await agent.getState('s1')).messages.length).toBeGreaterThan(0);
    await agent.close();

    // Another process: a new agent over the same SQLite file starts with the tools the thread found.
    const second = await server([{ text: 'still here' }]);
    const resumed = agentOver(fx, second.model('gpt-test'), {}, store.checkpointer);
    await collect(resumed.stream('hello again', { threadId: 's1' }));
    expect(toolNames(second.requests[0])).toEqual(expect.arrayContaining(['git_commit', 'send_email']));
    const tools = await resumed.toolsFor('s1');
    expect(tools.find((t) => t.name === 'git_commit')?.bound).toBe('found');
    expect(tools.find((t) => t.name === 'find_tools')?.bound).toBe('search');
    expect(tools.find((t) => t.name === 'sql_query')?.bound).toBe(false);
    expect(tools.filter((t) => t.bound !== false).length).toBeLessThanOrEqual(40);
  });

  it("returns only tools the session's policy allows", async () => {
    const fx = await manyTools(200);
    fx.policy.disable('s1', 'weather');
    const { requests, model } = await server([find('weather forecast rain temperature', 10), { text: 'no' }]);
    const agent = agentOver(fx, model('gpt-test'));
    await collect(agent.stream('forecast?', { threadId: 's1' }));
    const [result] = await toolMessages(agent, 's1');
    const weather = REALISTIC_SKILLS.find((s) => s.skill === 'weather')?.tools.map((t) => t.name) ?? [];
    expect(weather.length).toBe(3);
    for (const name of weather) expect(String(result?.content)).not.toContain(name);
    for (const name of weather) expect(toolNames(requests[1])).not.toContain(name);
  });

  it('names a tool find_tools added in the approval request, and refuses a held-back tool it did not add', async () => {
    const fx = await manyTools(200);
    const { model } = await server([
      { call: { name: 'stock_quote', args: { input: 'ACME' } } },
      find('share price of a stock'),
      { call: { name: 'stock_quote', args: { input: 'ACME' } } },
    ]);
    const agent = agentOver(fx, model('gpt-test'));
    const events = await collect(agent.stream('ACME price?', { threadId: 's1', approval: 'always' }));
    const [refused, found] = await toolMessages(agent, 's1');
    expect(refused?.status).toBe('error');
    expect(refused?.content).toMatch(/not available/);
    expect(found?.content).toContain('stock_quote');
    const [request] = ofType(events, 'approval-request').flatMap((e) => e.requests);
    expect(request?.tool).toBe('stock_quote');
    expect(request?.addedBy).toBe('find_tools');
    // Approved, the found tool runs on resume: the selection is recomputed from the checkpointed foundTools.
    await collect(
      agent.resume('s1', { [request?.id as string]: { type: 'approve' } }, { approval: 'always' }),
    );
    const ran = (await toolMessages(agent, 's1')).at(-1);
    expect(ran?.name).toBe('stock_quote');
    expect(ran?.content).toBe('done: ACME');
  });

  it('refuses a tool budget that is not positive whole numbers (bad-option)', async () => {
    const fx = await manyTools(60);
    const { model } = await server([]);
    for (const toolBudget of [{ maxTools: 0 }, { maxChars: 1.5 }, 'big']) {
      expect(() =>
        createAgent({
          model: model('gpt-test'),
          registry: fx.registry,
          policy: fx.policy,
          options: { toolBudget: toolBudget as never },
        }),
      ).toThrow(expect.objectContaining({ code: 'bad-option' }));
    }
  });

  it('counts characters of definitions too, and binds pinned tools and those of always_inject skills', async () => {
    const long = 'A tool with a long description. '.repeat(20);
    const skills = [
      {
        skill: 'wordy',
        description: 'Wordy tools',
        tags: ['wordy'],
        tools: Array.from({ length: 30 }, (_, i) => ({ name: `wordy_${i}`, description: `${long}${i}` })),
      },
    ];
    const dir = await makeTempDir('birdie-find-tools-');
    cleanups.push(() => dir.cleanup());
    await writeTree(dir.path, {
      ...skillFiles(skills),
      'todo/SKILL.md': `---\nname: todo\ndescription: Plans\nalways_inject: true\nenabled_by_default: true\n---\n\nPlan first.\n\n## Tools\n\n### todo_plan\ndescription: Make a plan\nentrypoint: node:tool.mjs#run\nschema:\n  type: object\n  properties: {}\n`,
      'todo/tool.mjs': 'export async function run() { return "ok"; }\n',
    });
    const registry = await loadRegistry({ dirs: [dir.path] });
    const fx = { dir, registry, policy: new SkillPolicy(registry) };
    const { requests, model } = await server([{ text: 'hi' }]);
    const agent = agentOver(fx, model('gpt-test'));
    await collect(agent.stream('hello', { threadId: 's1', pinnedTools: ['wordy_7'] }));
    const names = toolNames(requests[0]);
    expect(names).toEqual(expect.arrayContaining(['todo_plan', 'wordy_7', 'find_tools']));
    expect(names).toHaveLength(3);
    // Under a budget that holds them all, every tool is bound and find_tools is not.
    const wide = await server([{ text: 'hi' }]);
    const roomy = agentOver(fx, wide.model('gpt-test'), { toolBudget: { maxTools: 100, maxChars: 100_000 } });
    await collect(roomy.stream('hello', { threadId: 's2' }));
    expect(toolNames(wide.requests[0])).toHaveLength(31);
    expect(toolNames(wide.requests[0])).not.toContain('find_tools');
  });
});
