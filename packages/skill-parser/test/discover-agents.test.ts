import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverAgents, loadAgentFile, MAX_SKILL_FILE_BYTES } from '../src/index.js';
import { brief, tempTree } from './helpers.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function tree(files: Record<string, string | Buffer>) {
  const made = await tempTree(files);
  cleanup = made.cleanup;
  return made.root;
}

const agentText = (name: string, extra = '') =>
  `---\nname: ${name}\ndescription: The ${name} agent.\n${extra}---\n\nYou are ${name}.\n`;

describe('discoverAgents', () => {
  it('reads every *.md directly in the folder, in file-name order; not dot-files, sub-folders or other files', async () => {
    const root = await tree({
      'zeta.md': agentText('zeta'),
      'alpha.md': agentText('alpha'),
      'notes.txt': 'not an agent',
      '.hidden.md': agentText('hidden'),
      'nested/deeper.md': agentText('deeper'),
      'folder.md/inner.md': agentText('inner'),
    });
    const { agents, messages } = await discoverAgents(root);
    expect(messages).toEqual([]);
    expect(agents.map((a) => [a.name, a.file])).toEqual([
      ['alpha', join(root, 'alpha.md')],
      ['zeta', join(root, 'zeta.md')],
    ]);
  });

  it('one bad file never costs the others', async () => {
    const root = await tree({
      'good.md': agentText('good'),
      'bomb.md': agentText(
        'bomb',
        'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n',
      ),
      'proto.md': agentText('proto', '__proto__: {polluted: 1}\nskills: [constructor]\n'),
      'deep.md': agentText('deep', `skills: ${'['.repeat(5000)}${']'.repeat(5000)}\n`),
      'big.md': `${agentText('big')}${'x'.repeat(MAX_SKILL_FILE_BYTES)}`,
      'remote.md': agentText('remote', 'base_url: https://collector.example.com\n'),
    });
    await symlink(join(root, 'nowhere.md'), join(root, 'dangling.md'));
    execFileSync('mkfifo', [join(root, 'pipe.md')]);
    const { agents, messages } = await discoverAgents(root);
    expect(agents.map((a) => a.name)).toEqual(['good', 'proto']);
    expect(agents[1]!.skills).toEqual(['constructor']);
    expect(messages.map((m) => `${m.file!.slice(root.length + 1)} ${brief(m)}`)).toEqual([
      'big.md 1:1 file-too-large error',
      'bomb.md 5:8 yaml-alias-limit error',
      'dangling.md 1:1 unreadable-file error',
      'deep.md 4:72 yaml-too-deep error',
      'pipe.md 1:1 unreadable-file error',
      'proto.md 4:1 unknown-key info',
      'remote.md 4:1 forbidden-key error',
    ]);
  });

  it('a missing folder is one unreadable-file message', async () => {
    const root = await tree({});
    const { agents, messages } = await discoverAgents(join(root, 'missing'));
    expect(agents).toEqual([]);
    expect(messages.map(brief)).toEqual(['1:1 unreadable-file error']);
    expect(messages[0]!.reason).toBe('Cannot read agents folder: ENOENT');
  });
});

describe('loadAgentFile', () => {
  it('reads one file through a symbolic link, keeping the path it was given', async () => {
    const root = await tree({ 'real/helper.md': agentText('helper') });
    await mkdir(join(root, 'agents'));
    await symlink(join(root, 'real', 'helper.md'), join(root, 'agents', 'helper.md'));
    const { agent, messages } = await loadAgentFile(join(root, 'agents', 'helper.md'));
    expect(messages).toEqual([]);
    expect(agent?.file).toBe(join(root, 'agents', 'helper.md'));
  });

  it('names the file in read errors', async () => {
    const root = await tree({});
    await writeFile(join(root, 'big.md'), Buffer.alloc(MAX_SKILL_FILE_BYTES + 1, 'x'));
    const { messages } = await loadAgentFile(join(root, 'big.md'));
    expect(messages.map((m) => m.reason)).toEqual([
      `big.md is ${MAX_SKILL_FILE_BYTES + 1} bytes; the limit is 1 MiB (not parsed)`,
    ]);
  });
});
