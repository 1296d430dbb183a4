import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRegistry, SkillPolicy } from '@birdie/registry';
import { corpusRoot, makeTempDir } from '@birdie/test-utils';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { type Agent, createAgent } from '../src/index.js';
import { callTools, collect, ofType, toolMessages, useCleanups } from './helpers.js';

const corpus = join(corpusRoot(), 'birdie');

const cleanups = useCleanups();

async function setup() {
  const work = await makeTempDir();
  const registry = await loadRegistry({ dirs: [corpus] });
  const policy = new SkillPolicy(registry);
  for (const name of ['Filesystem', 'Shell', 'ToDo', 'ssh']) policy.enable('s1', name);
  const model = fakeModel();
  const agent = createAgent({ model, registry, policy, options: { cwd: work.path } });
  cleanups.push(async () => {
    await agent.close();
    await work.cleanup();
  });
  return { agent, model, work, path: (name: string) => join(work.path, name) };
}

const results = (agent: Agent) => toolMessages(agent, 's1');

describe('the original birdie skills (corpus, read in place)', () => {
  it('offers only the enabled skills, injects ToDo always and ssh on its trigger', async () => {
    const { agent, model } = await setup();
    const names = (await agent.toolsFor('s1')).map((t) => t.name).sort();
    expect(names).toEqual(
      [
        'append_file',
        'create_directory',
        'list_dir',
        'load_skill',
        'read_file',
        'run_bash',
        'todo_complete_step',
        'todo_create_plan',
        'write_file',
      ].sort(),
    );
    expect(await agent.toolsFor('other')).toEqual([]);
    model.respond(new AIMessage('a')).respond(new AIMessage('b'));
    await collect(agent.stream('hello there', { threadId: 's1' }));
    await collect(agent.stream('open an ssh session to the build box', { threadId: 's1' }));
    const [plain, ssh] = model.calls.map((c) => String(c.messages[0]?.content));
    expect(plain).toContain('<skill name="ToDo">');
    expect(plain).not.toContain('<skill name="ssh">');
    expect(ssh).toContain('<skill name="ssh">');
    expect(ssh).toContain('# SSH Skill');
  });

  it('write_file keeps hostile content as data, list_dir applies its default, run_bash asks first', async () => {
    const { agent, model, path } = await setup();
    const content = '$(touch PWNED) `touch PWNED2` "; rm -rf ~; echo "';
    model
      // Calls of one model turn run side by side: the listing comes in the next turn, after the write.
      .respond(callTools([{ name: 'write_file', args: { path: 'out.txt', content } }]))
      .respond(callTools([{ name: 'list_dir', args: {}, id: 'c2' }]))
      .respond(callTools([{ name: 'run_bash', args: { command: 'echo raw > raw.txt' }, id: 'c3' }]))
      .respond(new AIMessage('done'));
    const first = await collect(agent.stream('write it', { threadId: 's1' }));
    expect(readFileSync(path('out.txt'), 'utf8')).toBe(`${content}\n`);
    expect(existsSync(path('PWNED'))).toBe(false);
    expect(existsSync(path('PWNED2'))).toBe(false);
    const [, listing] = await results(agent);
    expect(listing?.status).toBe('success');
    expect(listing?.content).toContain('out.txt');
    expect(ofType(first, 'approval-request')[0]?.requests[0]).toMatchObject({
      tool: 'run_bash',
      skill: 'Shell',
      reason: 'raw-command',
      description: 'Run shell command: echo raw > raw.txt',
    });
    expect(existsSync(path('raw.txt'))).toBe(false);
    await collect(agent.resume('s1', { c3: { type: 'approve' } }));
    expect(readFileSync(path('raw.txt'), 'utf8')).toBe('raw\n');
  });
});
