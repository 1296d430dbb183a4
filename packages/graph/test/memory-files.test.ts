import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createScriptedModel } from '@birdie/providers';
import { makeTempDir } from '@birdie/test-utils';
import { describe, expect, it } from 'vitest';
import { createAgent, findMemoryFiles } from '../src/index.js';
import { agentSpec, collect, skillsFixture, textOf, useCleanups, withAgents } from './helpers.js';

const cleanups = useCleanups();

async function tree() {
  const dir = await makeTempDir('birdie-memory-files-');
  cleanups.push(() => dir.cleanup());
  const root = join(dir.path, 'outside', 'repo');
  await mkdir(join(root, '.git'), { recursive: true });
  await mkdir(join(root, 'packages', 'app', 'src'), { recursive: true });
  await writeFile(join(dir.path, 'outside', 'AGENTS.md'), 'Above the repository: never read.');
  await writeFile(join(root, 'AGENTS.md'), 'Repository rules.');
  await writeFile(join(root, 'packages', 'app', 'AGENTS.md'), 'App rules.');
  const user = join(dir.path, 'home', '.birdie', 'AGENTS.md');
  await mkdir(join(dir.path, 'home', '.birdie'), { recursive: true });
  await writeFile(user, 'My own rules.');
  return { dir, root, user };
}

describe('findMemoryFiles', () => {
  it('reads the user file, then AGENTS.md from the repository root down to the working directory', async () => {
    const { root, user } = await tree();
    const files = await findMemoryFiles({ cwd: join(root, 'packages', 'app', 'src'), userFile: user });
    expect(files).toEqual([
      { path: user, text: 'My own rules.' },
      { path: join(root, 'AGENTS.md'), text: 'Repository rules.' },
      { path: join(root, 'packages', 'app', 'AGENTS.md'), text: 'App rules.' },
    ]);
  });

  it('leaves the project out when asked (an untrusted workspace), and reads only cwd outside a repository', async () => {
    const { dir, root, user } = await tree();
    expect(await findMemoryFiles({ cwd: root, userFile: user, project: false })).toEqual([
      { path: user, text: 'My own rules.' },
    ]);
    const loose = join(dir.path, 'loose');
    await mkdir(join(loose, 'deeper'), { recursive: true });
    await writeFile(join(loose, 'AGENTS.md'), 'Loose rules.');
    expect(await findMemoryFiles({ cwd: join(loose, 'deeper') })).toEqual([]);
    expect(await findMemoryFiles({ cwd: loose })).toEqual([
      { path: join(loose, 'AGENTS.md'), text: 'Loose rules.' },
    ]);
  });

  it('caps what it reads per file and skips what is not a file', async () => {
    const { root } = await tree();
    await writeFile(join(root, 'AGENTS.md'), 'x'.repeat(100));
    await symlink(join(root, 'packages'), join(root, 'packages', 'app', 'src', 'AGENTS.md'));
    const files = await findMemoryFiles({ cwd: join(root, 'packages', 'app', 'src'), maxFileBytes: 10 });
    expect(files.map((f) => [f.path.slice(root.length), f.text])).toEqual([
      ['/AGENTS.md', 'x'.repeat(10)],
      ['/packages/app/AGENTS.md', 'App rules.'],
    ]);
  });
});

describe('memory files in the prompt', () => {
  it('are their own tier after the agent body and before the skills, the same bytes for the same files', async () => {
    const fx = await skillsFixture({});
    const model = createScriptedModel([{ text: 'a' }, { text: 'b' }]);
    const agent = createAgent({
      model,
      registry: withAgents(fx.registry, [agentSpec('coder', { body: 'You write code.' })]),
      policy: fx.policy,
    });
    cleanups.push(async () => {
      await agent.close();
      await fx.dir.cleanup();
    });
    const memoryFiles = [{ path: '/repo/AGENTS.md', text: 'Run the tests.' }];
    await collect(agent.stream('one', { threadId: 's1', agent: 'coder', memoryFiles }));
    await collect(
      agent.stream('two', { threadId: 's2', agent: 'coder', memoryFiles: [{ ...memoryFiles[0]! }] }),
    );
    const [first, second] = model.calls.map((c) => textOf(c.messages[0]));
    expect(first).toBe(second);
    expect(first).toMatch(
      /You write code\.\n\n# Project instructions \(AGENTS\.md\)\n<memory-file path="\/repo\/AGENTS\.md">\nRun the tests\.\n<\/memory-file>$/,
    );
  });
});
