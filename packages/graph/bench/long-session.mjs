// pnpm bench (second part): a long session with context_window 8000 — one tool call per turn whose result is 2 KB —
// with compaction, against the same session without it (compaction: false; only the 1,000-message cap). Per-call
// prompt tokens (birdie's estimator, on what the model received) and per-turn time at turns 10, 100 and 1,000,
// each session on a real SQLite checkpointer, measured in the same process.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRegistry, SkillPolicy } from '@birdie/registry';
import { openStore } from '@birdie/store';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage } from '@langchain/core/messages';
import { CHARS_ESTIMATOR, createAgent, SUMMARY_HEADER } from '../dist/index.js';

const TURNS = Number(process.env.BENCH_LONG_TURNS ?? 1000);
const POINTS = [10, 100, 1000].filter((t) => t <= TURNS);
/** Turns measured around each point (the median of the window ending at it). */
const WINDOW = Number(process.env.BENCH_LONG_WINDOW ?? 9);

/** Calls the tool once per user message and answers the tool result; answers summary requests; records prompt sizes. */
class SessionModel extends BaseChatModel {
  calls = 0;
  /** Estimated tokens of the last conversation call's messages (system prompt included). */
  lastPrompt = 0;
  summaries = 0;
  constructor() {
    super({});
  }
  _llmType() {
    return 'bench-session';
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    this.calls += 1;
    const last = messages.at(-1);
    let message;
    if (last?.type === 'human' && String(last.content).startsWith(SUMMARY_HEADER)) {
      this.summaries += 1;
      message = new AIMessage(`Summary ${this.summaries}: the user fetched pages; nothing is open.`);
    } else {
      this.lastPrompt = CHARS_ESTIMATOR.messages(messages);
      message =
        last?.type === 'tool'
          ? new AIMessage('Fetched.')
          : new AIMessage({
              content: '',
              tool_calls: [{ id: `call_${this.calls}`, name: 'fetch_page', args: {} }],
            });
    }
    return { generations: [{ text: String(message.content), message }] };
  }
}

const PAGE = 'lorem ipsum dolor sit amet, '.repeat(80).slice(0, 2048);

async function session(root, name, options) {
  const dir = join(root, name);
  await mkdir(join(dir, 'skills', 'pages'), { recursive: true });
  await writeFile(
    join(dir, 'skills', 'pages', 'page.mjs'),
    `export function run() { return ${JSON.stringify(PAGE)}; }\n`,
  );
  await writeFile(
    join(dir, 'skills', 'pages', 'SKILL.md'),
    '---\nname: pages\ndescription: Fetches pages\nenabled_by_default: true\n---\n\n## Tools\n\n### fetch_page\ndescription: Fetch the next page\nentrypoint: node:page.mjs#run\nschema:\n  type: object\n  properties: {}\n',
  );
  const registry = await loadRegistry({ dirs: [join(dir, 'skills')] });
  const store = openStore({ file: join(dir, 'birdie.db') });
  const model = new SessionModel();
  const agent = createAgent({
    model,
    registry,
    policy: new SkillPolicy(registry),
    checkpointer: store.checkpointer,
    options: { cwd: dir, contextWindow: 8000, ...options },
  });
  const at = new Map();
  let times = [];
  let prompts = [];
  return {
    name,
    at,
    model,
    async turn(n, thread = 'bench') {
      const start = process.hrtime.bigint();
      await agent.invoke(`fetch page ${n}`, { threadId: thread });
      if (thread !== 'bench') return;
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
      prompts.push(model.lastPrompt);
      if (times.length > WINDOW) {
        times = times.slice(-WINDOW);
        prompts = prompts.slice(-WINDOW);
      }
      const median = () => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
      if (process.env.BENCH_TRACE && n % 100 === 0) console.error(name, n, median().toFixed(1), 'ms');
      if (POINTS.includes(n)) at.set(n, { ms: median(), tokens: Math.max(...prompts) });
    },
    async close() {
      const compactions = (await agent.getState('bench')).compactions.length;
      await agent.close();
      await store.close();
      return compactions;
    },
  };
}

const root = await mkdtemp(join(tmpdir(), 'birdie-graph-long-'));
try {
  const compacted = await session(root, 'compacted', {});
  const plain = await session(root, 'plain', { compaction: false });
  // Warm-up on another thread (JIT, module caches), then both sessions in lockstep, so the machine's load falls on
  // both alike.
  for (let n = 1; n <= 30; n += 1) for (const s of [compacted, plain]) await s.turn(n, 'warm-up');
  for (let n = 1; n <= TURNS; n += 1) for (const s of [compacted, plain]) await s.turn(n);
  compacted.compactions = await compacted.close();
  plain.compactions = await plain.close();
  compacted.summaries = compacted.model.summaries;
  console.log(`\n## Long session: ${TURNS} turns, 2 KB tool result per turn, context_window 8000\n`);
  console.log(
    '| turn | prompt tokens, compaction | ms/turn, compaction | prompt tokens, none | ms/turn, none |',
  );
  console.log('|---:|---:|---:|---:|---:|');
  for (const t of POINTS) {
    const c = compacted.at.get(t);
    const p = plain.at.get(t);
    console.log(`| ${t} | ${c.tokens} | ${c.ms.toFixed(1)} | ${p.tokens} | ${p.ms.toFixed(1)} |`);
  }
  const first = POINTS[0];
  const last = POINTS.at(-1);
  const ratio = (s, key) => (s.at.get(last)[key] / s.at.get(first)[key]).toFixed(2);
  console.log(
    `\nturn ${last} ÷ turn ${first}: with compaction ${ratio(compacted, 'tokens')}× tokens, ${ratio(compacted, 'ms')}× time` +
      ` (${compacted.compactions} compactions); without ${ratio(plain, 'tokens')}× tokens, ${ratio(plain, 'ms')}× time`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
