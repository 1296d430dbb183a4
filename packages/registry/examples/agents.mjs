// Run after `pnpm --filter @birdie/registry build`:  node packages/registry/examples/agents.mjs
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultAgentDirectories, defaultSkillDirectories, loadRegistry } from '@birdie/registry';

const root = await mkdtemp(join(tmpdir(), 'birdie-agents-'));
const home = join(root, 'home');
const cwd = join(root, 'project');
const file = async (path, lines) => {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, `${lines.join('\n')}\n`);
};
const agent = (name, ...lines) => [
  '---',
  `name: ${name}`,
  `description: The ${name} agent`,
  ...lines,
  '---',
  '',
  `You are ${name}.`,
];

await file(join(home, '.birdie', 'skills', 'notes', 'SKILL.md'), [
  '---',
  'name: notes',
  'description: Notes',
  '---',
  '## Tools',
  '### add_note',
  'description: Add a note',
  'entrypoint: bash:echo {text}',
  'schema:',
  '  type: object',
  '  properties:',
  '    text: {type: string}',
]);
await file(
  join(home, '.birdie', 'agents', 'writer.md'),
  agent('writer', 'skills: [notes]', 'approve: [add_note, send_mail]', 'subagents: [editor]'),
);
await file(
  join(cwd, '.agents', 'agents', 'editor.md'),
  agent('editor', 'model: anthropic:claude-sonnet-4-5', 'approve: [add_note]'),
);

let trusted = '';
const registry = await loadRegistry({
  dirs: defaultSkillDirectories({ home, cwd }),
  agentDirs: defaultAgentDirectories({ home, cwd }),
  builtinTools: ['load_skill', 'task'],
  trust: (workspace) => workspace.digest === trusted,
});
const show = (label) => {
  const snapshot = registry.current();
  console.log(
    `${label}: agents ${snapshot.agents.map((a) => `${a.name} (${snapshot.agentLayerOf(a.name)?.layer})`).join(', ')}`,
  );
  for (const m of snapshot.messages) console.log(`  ${String(m).replace(root, '<tmp>')} [${m.ruleId}]`);
  for (const w of snapshot.untrusted)
    console.log(
      `  untrusted: ${w.agents.map((a) => `${a.name} model=${a.model} approve=${a.approve}`).join('; ')}`,
    );
};
show('before trust');
trusted = registry.current().untrusted[0].digest;
await registry.reload();
show('after trust');
console.log('writer:', registry.current().getAgent('WRITER').positions.approve);
await rm(root, { recursive: true, force: true });
