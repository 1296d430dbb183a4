// Not part of `pnpm bench`: a CPU-profile helper (node --cpu-prof bench/profile.mjs) to see where a turn goes.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRegistry, SkillPolicy } from '@birdie/registry';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage } from '@langchain/core/messages';
import { createAgent } from '../dist/index.js';

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
const root = await mkdtemp(join(tmpdir(), 'birdie-prof-'));
for (let i = 0; i < 100; i += 1) {
  const id = String(i).padStart(3, '0');
  await mkdir(join(root, `s${id}`));
  await writeFile(join(root, `s${id}`, 'tool.mjs'), 'export function run(a) { return `ok ${a.value}`; }\n');
  await writeFile(
    join(root, `s${id}`, 'SKILL.md'),
    `---\nname: s${id}\ndescription: skill ${id}\nenabled_by_default: true\ntriggers: [t${id}]\n---\n\n## Tools\n\n### tool_${id}\ndescription: tool\nentrypoint: node:tool.mjs#run\nschema:\n  type: object\n  properties:\n    value:\n      type: string\n  required: [value]\n`,
  );
}
const registry = await loadRegistry({ dirs: [root] });
const agent = createAgent({ model: new ZeroLatencyModel(), registry, policy: new SkillPolicy(registry) });
const t0 = performance.now();
for (let i = 0; i < 400; i += 1) for await (const _ of agent.stream('go', { threadId: `p${i}` }));
console.log(((performance.now() - t0) / 400).toFixed(3), 'ms per round trip');
await agent.close();
await rm(root, { recursive: true, force: true });
