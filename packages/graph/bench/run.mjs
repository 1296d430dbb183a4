// pnpm bench: framework overhead of the birdie agent per model+tool round trip, against a minimal hand-written
// StateGraph loop with the same zero-latency model and the same tool function, measured in the same process — with
// no agent, and with a named agent (body, a skills list, approve); and the system-prompt size with the 14
// agentskills corpus skills, catalog only vs every body injected.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRegistry, SkillPolicy } from '@birdie/registry';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { DynamicStructuredTool } from '@langchain/core/tools';
import { END, MemorySaver, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { getEncoding } from 'js-tiktoken';
import { buildSystemPrompt, createAgent } from '../dist/index.js';

const ROUND_TRIPS = Number(process.env.BENCH_ROUND_TRIPS ?? 400);
const SKIP_LONG = process.env.BENCH_SKIP_LONG === '1';
const WARMUP = 50;
const SKILLS = 100;

/** Answers a human message with one tool call and a tool result with text; no I/O, no latency. */
class ZeroLatencyModel extends BaseChatModel {
  calls = 0;
  constructor() {
    super({});
  }
  _llmType() {
    return 'zero-latency';
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    this.calls += 1;
    const last = messages.at(-1);
    const message =
      last?.type === 'tool'
        ? new AIMessage({ content: `result: ${last.content}` })
        : new AIMessage({
            content: '',
            tool_calls: [{ id: `call_${this.calls}`, name: 'tool_000', args: { value: 'x' } }],
          });
    return { generations: [{ text: String(message.content), message }] };
  }
}

const toolModuleSource = 'export function run(args) { return "ok " + args.value; }\n';
const { run: toolFunction } = await import(
  `data:text/javascript;base64,${Buffer.from(toolModuleSource).toString('base64')}`
);

async function makeSkills(root) {
  for (let i = 0; i < SKILLS; i += 1) {
    const id = String(i).padStart(3, '0');
    const dir = join(root, `skill-${id}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'tool.mjs'), toolModuleSource);
    await writeFile(
      join(dir, 'SKILL.md'),
      `---\nname: skill-${id}\ndescription: Benchmark skill number ${id}, which does one small thing well\nenabled_by_default: true\ntriggers: [topic${id}]\n---\n\n## Tools\n\n### tool_${id}\ndescription: Tool ${id}: returns ok and the value it was given\nentrypoint: node:tool.mjs#run\nschema:\n  type: object\n  properties:\n    value:\n      type: string\n  required: [value]\n`,
    );
  }
}

/** The baseline: the smallest StateGraph agent loop one would write by hand with the same model and tool. */
function baselineGraph(model) {
  const tool = new DynamicStructuredTool({
    name: 'tool_000',
    description: 'returns ok and the value it was given',
    schema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] },
    func: async (args) => toolFunction(args),
  });
  const bound = model.bindTools([tool]);
  const State = new StateSchema({ messages: MessagesValue });
  return new StateGraph(State)
    .addNode('agent', async (state) => ({ messages: [await bound.invoke(state.messages)] }))
    .addNode('tools', async (state) => {
      const ai = state.messages.at(-1);
      const results = await Promise.all(
        ai.tool_calls.map(
          async (call) => new ToolMessage({ tool_call_id: call.id, content: await tool.func(call.args) }),
        ),
      );
      return { messages: results };
    })
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (s) => (s.messages.at(-1).tool_calls?.length ? 'tools' : END), [
      'tools',
      END,
    ])
    .addEdge('tools', 'agent')
    .compile({ checkpointer: new MemorySaver() });
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const p90 = sorted[Math.floor(sorted.length * 0.9)];
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { median, p90, mean };
}

async function time(fn, n) {
  const samples = [];
  for (let i = 0; i < n; i += 1) {
    const start = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

const root = await mkdtemp(join(tmpdir(), 'birdie-graph-bench-'));
try {
  await makeSkills(root);
  const registry = await loadRegistry({ dirs: [root] });
  const policy = new SkillPolicy(registry);
  const agentModel = new ZeroLatencyModel();
  const agent = createAgent({ model: agentModel, registry, policy });
  const baseline = baselineGraph(new ZeroLatencyModel());
  // The same skills behind a registry with an agent layer, and a turn that names the agent.
  const spec = {
    name: 'bench',
    description: 'The benchmark agent',
    body: 'You are the benchmark agent. Call the tool once, then answer.',
    skills: Array.from({ length: 20 }, (_, i) => `skill-${String(i).padStart(3, '0')}`),
    approve: ['tool_000'],
    file: '/agents/bench.md',
    digest: 'bench',
  };
  const withAgent = {
    current() {
      const base = registry.current();
      if (withAgent.base !== base) {
        withAgent.base = base;
        withAgent.snapshot = Object.assign(Object.create(base), {
          getAgent: (name) => (name === spec.name ? spec : undefined),
        });
      }
      return withAgent.snapshot;
    },
  };
  const namedAgent = createAgent({ model: new ZeroLatencyModel(), registry: withAgent, policy });

  const birdieTurn = async (i) => {
    for await (const event of agent.stream('do the thing', { threadId: `b${i}` })) {
      if (event.type === 'error') throw new Error(event.error.message);
    }
  };
  const namedTurn = async (i) => {
    for await (const event of namedAgent.stream('do the thing', { threadId: `a${i}`, agent: 'bench' })) {
      if (event.type === 'error') throw new Error(event.error.message);
    }
  };
  const baselineTurn = async (i) => {
    await baseline.invoke(
      { messages: [new HumanMessage('do the thing')] },
      { configurable: { thread_id: `h${i}` } },
    );
  };
  // Same thread, growing history: what a long session costs per round trip.
  const birdieLong = async () => {
    for await (const event of agent.stream('again', { threadId: 'long-b' })) {
      if (event.type === 'error') throw new Error(event.error.message);
    }
  };
  const baselineLong = async () => {
    await baseline.invoke(
      { messages: [new HumanMessage('again')] },
      { configurable: { thread_id: 'long-h' } },
    );
  };

  await time(birdieTurn, WARMUP);
  await time(baselineTurn, WARMUP);
  await time(namedTurn, WARMUP);
  const toolsSeen = (await agent.toolsFor('probe')).length;
  // Alternate the two call by call, so load changes on the shared machine hit both alike.
  const b = [];
  const h = [];
  const a = [];
  const bl = [];
  const hl = [];
  for (let i = 0; i < ROUND_TRIPS; i += 1) {
    h.push(...(await time(() => baselineTurn(i + 1000), 1)));
    b.push(...(await time(() => birdieTurn(i + 1000), 1)));
    a.push(...(await time(() => namedTurn(i + 1000), 1)));
  }
  if (!SKIP_LONG) {
    for (let i = 0; i < ROUND_TRIPS / 2; i += 1) {
      hl.push(...(await time(baselineLong, 1)));
      bl.push(...(await time(birdieLong, 1)));
    }
  }
  await agent.close();
  await namedAgent.close();
  const sb = stats(b);
  const sh = stats(h);
  const sa = stats(a);
  const sbl = SKIP_LONG ? { median: Number.NaN, p90: Number.NaN, mean: Number.NaN } : stats(bl);
  const shl = SKIP_LONG ? { median: Number.NaN, p90: Number.NaN, mean: Number.NaN } : stats(hl);
  const fmt = (x) => x.toFixed(3);

  console.log(`## @birdie/graph benchmark\n`);
  console.log(
    `Round trip = model call with one tool call → tool → model call with the answer (two model calls, one tool run), ` +
      `zero-latency model, MemorySaver in both. birdie: ${SKILLS} enabled skills (${toolsSeen} tools bound per call), ` +
      `tool via a \`node:\` entrypoint; baseline: hand-written StateGraph loop with the same model and the same function as its one tool. ` +
      `${ROUND_TRIPS} round trips each, alternating call by call, after ${WARMUP} warm-up.\n`,
  );
  console.log('| case | median ms | p90 ms | mean ms | ratio (median) |');
  console.log('|---|---:|---:|---:|---:|');
  console.log(
    `| baseline StateGraph loop, new thread | ${fmt(sh.median)} | ${fmt(sh.p90)} | ${fmt(sh.mean)} | 1.00× |`,
  );
  console.log(
    `| birdie agent, ${SKILLS} skills, no agent named, new thread | ${fmt(sb.median)} | ${fmt(sb.p90)} | ${fmt(sb.mean)} | **${(sb.median / sh.median).toFixed(2)}×** |`,
  );
  console.log(
    `| birdie agent, named agent (body, 20 of the skills, approve), new thread | ${fmt(sa.median)} | ${fmt(sa.p90)} | ${fmt(sa.mean)} | **${(sa.median / sh.median).toFixed(2)}×** |`,
  );
  console.log(
    `| baseline, one thread (${ROUND_TRIPS / 2} turns) | ${fmt(shl.median)} | ${fmt(shl.p90)} | ${fmt(shl.mean)} | 1.00× |`,
  );
  console.log(
    `| birdie, one thread (${ROUND_TRIPS / 2} turns) | ${fmt(sbl.median)} | ${fmt(sbl.p90)} | ${fmt(sbl.mean)} | **${(sbl.median / shl.median).toFixed(2)}×** |`,
  );

  // System prompt size with the agentskills corpus.
  const corpus = fileURLToPath(new URL('../../../../shared/corpus/agentskills', import.meta.url));
  const corpusRegistry = await loadRegistry({ dirs: [corpus] });
  const skills = corpusRegistry.current().skills;
  const common = { allowed: skills, memory: [], catalogBudgetChars: 8000, canLoadSkills: true };
  const catalogOnly = buildSystemPrompt({ ...common, triggered: [] });
  const everything = buildSystemPrompt({ ...common, triggered: skills });
  const enc = getEncoding('o200k_base');
  const tokens = (s) => enc.encode(s).length;
  const tc = tokens(catalogOnly);
  const te = tokens(everything);
  console.log(
    `\n### System prompt with the ${skills.length} corpus/agentskills skills (o200k_base tokens)\n`,
  );
  console.log('| prompt | characters | tokens | ratio |');
  console.log('|---|---:|---:|---:|');
  console.log(
    `| catalog only (progressive: bodies via load_skill) | ${catalogOnly.length} | ${tc} | 1.00× |`,
  );
  console.log(`| all bodies injected eagerly | ${everything.length} | ${te} | ${(te / tc).toFixed(1)}× |`);
} finally {
  await rm(root, { recursive: true, force: true });
}
