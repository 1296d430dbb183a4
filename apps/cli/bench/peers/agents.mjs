// The two agents the side-by-side bench compares, built the same way: the same zero-latency fake model class
// (`fakeModel()` from @langchain/core/testing), the same one tool (echo_value, the same function), the same 14 Agent
// Skills of the shared corpus (read where they are, never copied). Each side otherwise keeps its own defaults.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The shared corpus beside the checkout (`/work/shared/corpus` through `../shared`); $BENCH_CORPUS overrides. */
export const CORPUS =
  process.env.BENCH_CORPUS ??
  fileURLToPath(new URL('../../../../../shared/corpus/agentskills', import.meta.url));

export const echo = (args) => `ok ${args.value}`;

/** The same tool for LangChain's agents: a `tool()` around `echo`. */
export async function langchainEchoTool() {
  const { tool } = await import('@langchain/core/tools');
  const { z } = await import('zod');
  return tool(async (args) => echo(args), {
    name: 'echo_value',
    description: 'Returns ok and the value it was given',
    schema: z.object({ value: z.string() }),
  });
}
const TOOL_SOURCE = `export function run(args) { return 'ok ' + args.value; }\n`;

/** A skills folder with one tool skill whose `node:` entrypoint is the function above (birdie's way to add a tool). */
export async function writeToolSkill(root) {
  const dir = join(root, 'echo-tool');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'tool.mjs'), TOOL_SOURCE);
  await writeFile(
    join(dir, 'SKILL.md'),
    '---\nname: echo-tool\ndescription: Echoes a value back, for the benchmark\nenabled_by_default: true\n---\n\n' +
      '## Tools\n\n### echo_value\ndescription: Returns ok and the value it was given\nentrypoint: node:tool.mjs#run\n' +
      'schema:\n  type: object\n  properties:\n    value:\n      type: string\n  required: [value]\n',
  );
  return root;
}

/**
 * A `fakeModel()` that answers forever: a tool result gets a text answer, anything else a call of echo_value
 * (`tools: true`) or a text answer of `answerChars` characters. `seen` records what the first call received; the
 * model keeps no other call.
 */
export async function makeModel({ tools = true, answerChars = 40 } = {}) {
  const { fakeModel } = await import('@langchain/core/testing');
  const { AIMessage, ToolMessage } = await import('@langchain/core/messages');
  const model = fakeModel();
  const seen = { messages: undefined, tools: undefined, bound: undefined };
  let calls = 0;
  // The queue is consumed by index, one entry per call (bound copies share it): keep it from running dry.
  const refill = () => {
    for (let i = 0; i < 1000; i++) model.respond(answer);
  };
  const answer = (messages) => {
    calls += 1;
    if (model.queue.length - calls < 10) refill();
    // fakeModel records every call's messages and options, and a graph's options reach its whole run (the stream's
    // writer holds the Pregel loop): kept, they grew each side's heap by 20–30 KB a round trip, so a long child
    // spent more and more on garbage collection, the side whose runs hold more the most. Nothing here reads them.
    model.calls.length = 0;
    if (calls === 1) {
      seen.messages = messages;
      seen.tools = seen.bound;
    }
    const last = messages.at(-1);
    if (ToolMessage.isInstance(last)) return new AIMessage(`result: ${last.content}`);
    if (!tools) return new AIMessage('a'.repeat(answerChars));
    return new AIMessage({
      content: '',
      tool_calls: [{ id: `call_${calls}`, name: 'echo_value', args: { value: 'x' }, type: 'tool_call' }],
    });
  };
  refill();
  const bindTools = model.bindTools.bind(model);
  model.bindTools = (list, kwargs) => {
    seen.bound = list;
    return bindTools(list, kwargs);
  };
  return { model, seen };
}

/** birdie: registry over the corpus + the tool skill (every corpus skill enabled, as deepagents lists them all). */
export async function birdieAgent({ model, toolDir, checkpointer }) {
  const { loadRegistry, SkillPolicy } = await import('@birdie/registry');
  const { createAgent } = await import('@birdie/graph');
  const registry = await loadRegistry({ dirs: [CORPUS, toolDir] });
  const policy = new SkillPolicy(registry, {
    defaults: registry.current().skills.map((s) => s.name),
  });
  const agent = createAgent({ model, registry, policy, ...(checkpointer ? { checkpointer } : {}) });
  return {
    agent,
    async turn(text, threadId) {
      for await (const event of agent.stream(text, { threadId })) {
        if (event.type === 'error') throw new Error(`birdie: ${event.error.message}`);
      }
    },
    close: () => agent.close(),
  };
}

/** deepagents: createDeepAgent with the tool and the corpus as its skills source (FilesystemBackend, virtual mode). */
export async function deepAgent({ model, checkpointer }) {
  const { createDeepAgent, FilesystemBackend } = await import('deepagents');
  const echoTool = await langchainEchoTool();
  const agent = createDeepAgent({
    model,
    tools: [echoTool],
    skills: ['/'],
    backend: new FilesystemBackend({ rootDir: CORPUS, virtualMode: true }),
    ...(checkpointer ? { checkpointer } : {}),
  });
  return {
    agent,
    async turn(text, threadId) {
      await agent.invoke(
        { messages: [{ role: 'user', content: text }] },
        { configurable: { thread_id: threadId } },
      );
    },
    close: async () => {},
  };
}

/** deepagents warns on two corpus skills (a long description, a name that is not its folder) at every load. */
export async function quietly(fn) {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return await fn();
  } finally {
    console.warn = warn;
  }
}
