// pnpm bench: a session with 1,000 enabled tool skills. What the first model call is given (tools bound, characters
// of tool JSON) with the tool budget (default: 40 tools, 12,000 characters) and without it (`toolBudget: false`,
// every tool bound, as before find_tools), in the same run; the CPU per round trip of both; how long the full-text
// index takes to build (once per registry snapshot) and to answer; and how often the right tool is in find_tools'
// first five results for the 20 written queries of the tests.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRegistry, SkillPolicy } from '@birdie/registry';
import { writeTree } from '@birdie/test-utils';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage } from '@langchain/core/messages';
import { createAgent } from '../dist/index.js';
import { manySkills, skillFiles, WRITTEN_QUERIES } from '../test/fixtures/many-tools/tools.mjs';

const ROUNDS = Number(process.env.BENCH_MANY_TOOLS_ROUNDS ?? 40);
const VENDOR_CAP = 128;

/**
 * Zero latency; records the tools of each call. `script(messages)` answers: a human message with a find_tools call
 * (the query is the message), a tool result with text.
 */
class RecordingModel extends BaseChatModel {
  bound = [];
  constructor(tools = []) {
    super({});
    this.tools = tools;
  }
  _llmType() {
    return 'recording';
  }
  bindTools(tools) {
    const next = new RecordingModel(tools);
    next.bound = this.bound;
    return next;
  }
  async _generate(messages) {
    this.bound.push(this.tools);
    const last = messages.at(-1);
    const message =
      last?.type === 'human'
        ? new AIMessage({
            content: '',
            tool_calls: [
              { id: `c${this.bound.length}`, name: 'find_tools', args: { query: String(last.content) } },
            ],
          })
        : new AIMessage({ content: 'done' });
    return { generations: [{ text: String(message.content), message }] };
  }
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = await mkdtemp(join(tmpdir(), 'birdie-bench-tools-'));
try {
  await writeTree(dir, skillFiles(manySkills(1000)));
  const registry = await loadRegistry({ dirs: [dir] });
  const policy = new SkillPolicy(registry);
  const make = (toolBudget) => {
    const model = new RecordingModel();
    const agent = createAgent({
      model,
      registry,
      policy,
      options: { cwd: dir, ...(toolBudget === false ? { toolBudget } : {}) },
    });
    return { model, agent };
  };
  const budgeted = make(undefined);
  const unbounded = make(false);

  // The first call of a new session, each side: what is sent, and the CPU of the whole round trip (find_tools incl.).
  const first = async ({ model, agent }, thread) => {
    const before = cpuMs();
    await agent.invoke('weather forecast for a city', { threadId: thread });
    const ms = cpuMs() - before;
    const tools = model.bound[0];
    return { ms, tools: tools.length, chars: JSON.stringify(tools.map((t) => t.definition ?? t)).length };
  };
  // The side without the budget goes first, so it (not the budgeted one) pays for the process's cold start.
  const b = await first(unbounded, 'first-b');
  const a = await first(budgeted, 'first-a');

  // Round trips, alternating sides, new thread each: CPU per round trip.
  const samples = { budgeted: [], unbounded: [] };
  for (let i = 0; i < ROUNDS; i += 1) {
    for (const [name, side] of [
      ['budgeted', budgeted],
      ['unbounded', unbounded],
    ]) {
      const before = cpuMs();
      await side.agent.invoke('share price of a stock', { threadId: `${name}-${i}` });
      samples[name].push(cpuMs() - before);
    }
  }

  // Search quality and the index: one thread per written query on the budgeted side (the index already exists).
  let hits = 0;
  const queryMs = [];
  for (const [i, q] of WRITTEN_QUERIES.entries()) {
    const before = cpuMs();
    await budgeted.agent.invoke(q.query, { threadId: `q${i}` });
    queryMs.push(cpuMs() - before);
    const state = await budgeted.agent.getState(`q${i}`);
    const result = state.messages.find((m) => m.getType() === 'tool');
    const names = [...String(result?.content).matchAll(/^- (\S+)/gm)].map((m) => m[1]);
    if (names.slice(0, 5).includes(q.tool)) hits += 1;
  }
  await budgeted.agent.close();
  await unbounded.agent.close();

  const fmt = (n) => n.toFixed(1);
  console.log('\nfirst call with 1,000 enabled tool skills (same run)');
  console.log('| case | tools bound | chars of tool JSON | target | first round trip, CPU ms |');
  console.log('|---|---:|---:|---|---:|');
  console.log(
    `| every tool bound (toolBudget: false, the old behaviour) | ${b.tools} | ${b.chars} | over the vendor cap (${VENDOR_CAP}) | ${fmt(b.ms)} |`,
  );
  console.log(
    `| tool budget (default) + find_tools | ${a.tools} | ${a.chars} | ≤ 40 tools, ≤ 12000 chars, ≤ ${VENDOR_CAP}: ${a.tools <= 40 && a.chars <= 12_000 ? 'met' : 'NOT met'} | ${fmt(a.ms)} (builds the index) |`,
  );
  console.log('\nround trip with find_tools, new thread, CPU ms (median of', ROUNDS, 'alternating)');
  console.log('| case | median | ratio |');
  console.log('|---|---:|---:|');
  const base = median(samples.unbounded);
  console.log(`| every tool bound | ${fmt(base)} | 1.00× |`);
  console.log(
    `| tool budget + find_tools | ${fmt(median(samples.budgeted))} | ${(median(samples.budgeted) / base).toFixed(2)}× |`,
  );
  console.log(
    `\nfind_tools quality: right tool in the first 5 for ${hits} of ${WRITTEN_QUERIES.length} written queries (target 20 of 20); round trip median ${fmt(median(queryMs))} CPU ms`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
