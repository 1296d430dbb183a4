// Run after `pnpm --filter @birdie/registry build`:  node packages/registry/examples/basic.mjs
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultSkillDirectories, loadRegistry, SkillPolicy } from '@birdie/registry';

const root = await mkdtemp(join(tmpdir(), 'birdie-example-'));
const write = async (dir, name, text) => {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(join(dir, name, 'SKILL.md'), text);
};
const bundled = join(root, 'app', 'skills');
const project = join(root, 'project', '.birdie', 'skills');

await write(
  bundled,
  'ssh',
  '---\nname: ssh\ndescription: SSH help\ntriggers: [ssh, remote server]\n---\nUse `ssh -i key host`.\n',
);
await write(bundled, 'notes', '---\nname: notes\ndescription: Bundled notes\n---\nNotes.\n');
await write(
  project,
  'notes',
  [
    '---',
    'name: notes',
    'description: Project notes',
    'tags: [writing]',
    '---',
    '',
    '## Tools',
    '',
    '### add_note',
    'description: Append a note',
    'entrypoint: bash:echo {text} >> notes.txt',
    'schema:',
    '  type: object',
    '  properties:',
    '    text: { type: string }',
    '  required: [text]',
    '',
  ].join('\n'),
);

const dirs = defaultSkillDirectories({
  bundledDir: bundled,
  home: join(root, 'home'),
  cwd: join(root, 'project'),
});
// Project folders are someone else's until the user trusts them: the decision sees what they declare.
let trustedDigest;
const registry = await loadRegistry({ dirs, trust: (workspace) => workspace.digest === trustedDigest });
const short = (text) => text.replaceAll(root, '<tmp>');
for (const workspace of registry.current().untrusted)
  console.log(
    'untrusted:',
    short(workspace.path),
    workspace.skills.map((s) => `${s.name} [${s.tools.map((t) => `${t.name}: ${t.entrypoint}`).join(', ')}]`),
  );
trustedDigest = registry.current().untrusted[0].digest; // the user said yes (the CLI keeps this in its store)
await registry.reload();
const snapshot = registry.current();

console.log(
  'skills:',
  snapshot.skills.map((s) => `${s.name} (${snapshot.layerOf(s.name).layer})`).join(', '),
);
for (const message of registry.messages)
  console.log('message:', short(String(message)), `[${message.ruleId}]`);
console.log('did you mean:', snapshot.suggest('shh'));
console.log(
  'tool owner:',
  snapshot.getTool('add_note').skill.name,
  'tags',
  snapshot.getTool('add_note').tags,
);

const saved = new Map();
const policy = new SkillPolicy(registry, {
  store: { get: (k) => saved.get(k), set: (k, g) => saved.set(k, g) },
});
policy.disable('session-1', 'notes');
console.log(
  'session-1 tools:',
  policy.allowedTools('session-1').map((e) => e.tool.name),
);
console.log(
  'session-2 tools:',
  policy.allowedTools('session-2').map((e) => e.tool.name),
);
const allowed = policy.allowedSkills('session-1').map((s) => s.name);
console.log(
  'triggered:',
  snapshot.matchTriggers('Log into the Remote  Server, then restart sshd', allowed).map((s) => s.name),
);
console.log(
  'not triggered by "sshd" alone:',
  snapshot.matchTriggers('restart sshd', allowed).map((s) => s.name),
);
console.log('persisted policy:', JSON.stringify(Object.fromEntries(saved)));

await write(
  bundled,
  'ssh',
  '---\nname: ssh\ndescription: SSH help, edited\ntriggers: [ssh]\n---\nNew text.\n',
);
await registry.reload();
console.log(
  `after reload: version ${registry.current().version}: "${registry.current().getSkill('ssh').description}";`,
  `the held snapshot still says "${snapshot.getSkill('ssh').description}" (version ${snapshot.version})`,
);
await rm(root, { recursive: true, force: true });
