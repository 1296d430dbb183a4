import { loadRegistry, SkillPolicy } from '@birdie/registry';
import { makeTempDir, writeTree } from '@birdie/test-utils';
import { describe, expect, it } from 'vitest';
import { type AgentOptions, createAgent } from '../src/index.js';
import { type ChatRequest, fakeOpenAI } from './fake-openai.js';
import { skillFiles } from './fixtures/many-tools/tools.mjs';
import { collect, ofType, toolMessages, useCleanups } from './helpers.js';

const cleanups = useCleanups();

/** `count` one-tool payment skills; `padding` makes each definition long (report item 2: ≈2,500 characters). */
async function paymentSkills(count: number, padding = '') {
  const dir = await makeTempDir('birdie-find-budget-');
  cleanups.push(() => dir.cleanup());
  const skills = Array.from({ length: count }, (_, i) => ({
    skill: `pay${i + 1}`,
    description: `Payment helper ${i + 1}.`,
    tags: ['payments'],
    tools: [{ name: `pay${i + 1}_refund`, description: `Refund helper ${i + 1}. ${padding}` }],
  }));
  await writeTree(dir.path, skillFiles(skills));
  const registry = await loadRegistry({ dirs: [dir.path] });
  return { dir, registry, policy: new SkillPolicy(registry) };
}

const toolNames = (request: ChatRequest | undefined) => (request?.tools ?? []).map((t) => t.function.name);

/** The `- name` lines of one section of a find_tools answer (up to the next blank line). */
function listed(answer: string, heading: RegExp): string[] {
  const at = answer.search(heading);
  if (at === -1) return [];
  const section = answer.slice(at).split('\n\n')[0] ?? '';
  return [...section.matchAll(/^- (\S+)/gm)].map((m) => m[1] as string);
}

/** find_tools, then a call of the first tool its answer says is callable, then `done`. */
async function findThenCallFirst(fx: Awaited<ReturnType<typeof paymentSkills>>, options: AgentOptions) {
  const { requests, model } = await fakeOpenAI(cleanups, (request) => {
    const last = request.messages.at(-1);
    if (last?.role === 'user')
      return { call: { name: 'find_tools', args: { query: 'refund a card payment', limit: 5 } } };
    const answer = String(last?.content ?? '');
    const first = listed(answer, /Tools you can call from your next step/)[0];
    return request.messages.filter((m) => m.role === 'tool').length === 1 && first
      ? { call: { name: first, args: { input: '42' } } }
      : { text: 'done' };
  });
  const agent = createAgent({
    model: model('gpt-test'),
    registry: fx.registry,
    policy: fx.policy,
    options: { cwd: fx.dir.path, ...options },
  });
  cleanups.push(() => agent.close());
  const events = await collect(agent.stream('refund it', { threadId: 's1' }));
  const [found, ran] = await toolMessages(agent, 's1');
  return { requests, events, answer: String(found?.content), ran };
}

describe('find_tools under a short tool budget (report item 2)', () => {
  it('adds the best-ranked results that fit, says so exactly, and names the rest with the reason', async () => {
    // Default budget (40 tools, 12,000 characters): only some of five ≈2,500-character definitions fit.
    const fx = await paymentSkills(50, 'Refunds a card payment to the customer; '.repeat(60));
    const { requests, events, answer, ran } = await findThenCallFirst(fx, {});
    const callable = listed(answer, /Tools you can call from your next step/);
    const notAdded = listed(answer, /could not be added/);
    expect(callable.length).toBeGreaterThan(0);
    expect(callable.length + notAdded.length).toBe(5);
    expect(answer).toMatch(/could not be added[^\n]*tool budget[^\n]*characters/);
    // What it says is callable is exactly what the next call is given (find_tools' own answer aside).
    const [, selection] = ofType(events, 'tool-selection');
    expect([...(selection?.found ?? [])].sort()).toEqual([...callable].sort());
    expect(toolNames(requests[1])).toEqual(expect.arrayContaining(callable));
    for (const name of notAdded) expect(toolNames(requests[1])).not.toContain(name);
    // The best-ranked result is the one kept first; the model's call of it runs.
    expect(ran?.name).toBe(callable[0]);
    expect(ran?.status).toBe('success');
    expect(ran?.content).toBe('done: 42');
  });

  it('with room for fewer tools than it found, keeps the first ones of its ranking (a tool-count budget)', async () => {
    const fx = await paymentSkills(12);
    // The ranking, from a budget with room for all five results (12 tools are over 11: limited).
    const roomy = await findThenCallFirst(fx, { toolBudget: { maxTools: 11, maxChars: 1_000_000 } });
    expect(roomy.answer).not.toMatch(/could not be added/);
    const ranking = listed(roomy.answer, /Tools you can call from your next step/);
    expect(ranking).toHaveLength(5);
    const narrow = await findThenCallFirst(fx, { toolBudget: { maxTools: 4, maxChars: 1_000_000 } });
    const callable = listed(narrow.answer, /Tools you can call from your next step/);
    const builtins = toolNames(narrow.requests[0]).filter((n) => !/^pay/.test(n)).length;
    expect(callable).toEqual(ranking.slice(0, 4 - builtins));
    expect(listed(narrow.answer, /could not be added/)).toEqual(ranking.slice(4 - builtins));
    expect(narrow.answer).toMatch(/could not be added[^\n]*4 tools/);
    expect(narrow.ran?.status).toBe('success');
  });

  it('says that none could be added when the tools always given fill the budget, and binds none', async () => {
    const fx = await paymentSkills(12);
    const { requests, events, answer } = await findThenCallFirst(fx, {
      toolBudget: { maxTools: 1, maxChars: 1_000_000 },
    });
    expect(listed(answer, /Tools you can call from your next step/)).toEqual([]);
    expect(listed(answer, /could not be added/)).toHaveLength(5);
    expect(ofType(events, 'tool-selection')[1]?.found).toEqual([]);
    expect(requests).toHaveLength(2);
  });
});
