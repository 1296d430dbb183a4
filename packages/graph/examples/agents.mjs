// The README's two-agent example: a reviewer that delegates to a researcher (task), with the scripted model.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent } from '@birdie/graph';
import { createScriptedModel } from '@birdie/providers';
import { loadRegistry, SkillPolicy } from '@birdie/registry';

const skills = await mkdtemp(join(tmpdir(), 'birdie-agents-'));
await mkdir(join(skills, 'facts'));
await writeFile(
  join(skills, 'facts', 'SKILL.md'),
  '---\nname: facts\ndescription: Looks facts up\nenabled_by_default: true\n---\n\n## Tools\n\n### lookup\ndescription: Look up a topic\nentrypoint: bash:echo "{topic}: hunt at night"\nschema:\n  type: object\n  properties:\n    topic: { type: string }\n  required: [topic]\n',
);

// --- the twenty lines ---------------------------------------------------------------------------------------
const agents = {
  reviewer: {
    name: 'reviewer',
    description: 'Reviews claims',
    body: 'You are the reviewer. Check claims with the researcher.',
    subagents: ['researcher'],
    skills: [],
    file: 'reviewer.md',
    digest: '1',
  },
  researcher: {
    name: 'researcher',
    description: 'Finds facts',
    body: 'You are the researcher. Answer with facts.',
    skills: ['facts'],
    file: 'researcher.md',
    digest: '2',
  },
};
const skillRegistry = await loadRegistry({ dirs: [skills] });
// An agent layer over the skill registry (the registry's agent folders give the same `getAgent`).
const registry = {
  current: () => Object.assign(Object.create(skillRegistry.current()), { getAgent: (n) => agents[n] }),
};
const model = createScriptedModel([
  {
    match: '^Do owls',
    tool_calls: [{ name: 'task', id: 't1', args: { agent: 'researcher', prompt: 'When do owls hunt?' } }],
  },
  { match: '^When', tool_calls: [{ name: 'lookup', id: 'l1', args: { topic: 'owls' } }] },
  { match: '^When', text: 'Owls hunt at night.' },
  { match: '^Do owls', text: 'Yes: the researcher confirms owls hunt at night.' },
  { match: '^Do owls', text: 'Yes, mice above all.' },
]);
const agent = createAgent({ model, registry, policy: new SkillPolicy(skillRegistry) });
for await (const e of agent.stream('Do owls hunt at night?', { threadId: 'demo', agent: 'reviewer' }))
  if (e.type !== 'token' && e.type !== 'usage')
    console.log(e.agent.join(' › ').padEnd(22), e.type.padEnd(10), e.name ?? e.message?.text ?? e.status);
const {
  text,
  usage,
  messages,
  agent: speaker,
} = await agent.invoke('Do owls like mice?', { threadId: 'demo' });
console.log('invoke →', JSON.stringify({ text, usage, messages: messages.length, agent: speaker }));
// ------------------------------------------------------------------------------------------------------------

await agent.close();
await rm(skills, { recursive: true, force: true });
