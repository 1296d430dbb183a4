// The README example: one skill with a bash tool, a scripted model, one turn, then an approval round trip.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent } from '@birdie/graph';
import { createScriptedModel } from '@birdie/providers';
import { loadRegistry, SkillPolicy } from '@birdie/registry';
import { MemorySaver } from '@langchain/langgraph';

const skills = await mkdtemp(join(tmpdir(), 'birdie-example-'));
await mkdir(join(skills, 'greet'));
await writeFile(
  join(skills, 'greet', 'SKILL.md'),
  `---
name: greet
description: Greets people by name
enabled_by_default: true
---

## Tools

### greet
description: Print a greeting for someone
entrypoint: bash:printf 'Hello, %s!' {name}
schema:
  type: object
  properties:
    name: { type: string }
  required: [name]

### forget
description: Delete the greeting log
entrypoint: bash:echo "deleted {file}"
approval: required
schema:
  type: object
  properties:
    file: { type: string }
  required: [file]
`,
);

const registry = await loadRegistry({ dirs: [skills] });
const model = createScriptedModel({
  replies: [
    { tool_calls: [{ name: 'greet', args: { name: 'Ada; rm -rf ~' }, id: 'call_1' }] },
    { text: 'Done: I greeted Ada.' },
    { tool_calls: [{ name: 'forget', args: { file: 'greetings.log' }, id: 'call_2' }] },
    { text: 'The log is gone.' },
  ],
});
const agent = createAgent({
  model,
  registry,
  policy: new SkillPolicy(registry),
  checkpointer: new MemorySaver(),
});

const show = (e) => {
  if (e.type === 'token') return; // printed joined below
  if (e.type === 'message')
    return console.log(`message  ${e.message.type}: ${JSON.stringify(e.message.content)}`);
  console.log(`${e.type.padEnd(8)} ${JSON.stringify({ ...e, type: undefined })}`);
};

let text = '';
for await (const e of agent.stream('Greet Ada', { threadId: 'demo' })) {
  if (e.type === 'token') text += e.text;
  show(e);
}
console.log(`tokens   ${JSON.stringify(text)}`);

for await (const e of agent.stream('Now forget it', { threadId: 'demo' })) show(e);
const { pendingApprovals } = await agent.getState('demo');
for await (const e of agent.resume('demo', { [pendingApprovals[0].id]: { type: 'approve' } })) show(e);

await agent.close();
await rm(skills, { recursive: true, force: true });
