import { readFileSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { loadRegistry, SkillPolicy } from '@birdie/registry';
import { corpusRoot } from '@birdie/test-utils';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { agentSetup, callTools, collect, knowledgeSkill, toolMessages, useCleanups } from './helpers.js';

const corpus = join(corpusRoot(), 'agentskills');

const cleanups = useCleanups();

async function corpusAgent() {
  const registry = await loadRegistry({ dirs: [corpus] });
  const policy = new SkillPolicy(registry);
  const model = fakeModel();
  const agent = createAgent({ model, registry, policy });
  cleanups.push(() => agent.close());
  return { registry, model, agent };
}

const fixture = agentSetup(cleanups);

const loadSkill = (name: string, id?: string) => callTools([{ name: 'load_skill', args: { name }, id }]);
const readReference = (skill: string, file: string, id?: string) =>
  callTools([{ name: 'read_reference', args: { skill, file }, id }]);

describe('progressive loading with the agentskills corpus (read in place)', () => {
  it('offers load_skill with exactly the allowed knowledge skills and keeps bodies out of the prompt', async () => {
    const { agent, registry, model } = await corpusAgent();
    const names = registry.current().skills.map((s) => s.name);
    expect(names.length).toBe(14);
    const tools = await agent.toolsFor('t1');
    expect(tools.map((t) => t.name)).toEqual(['load_skill', 'read_reference']);
    model.respond(new AIMessage('ok'));
    await collect(agent.stream('hello', { threadId: 't1' }));
    const system = String(model.calls[0]?.messages[0]?.content);
    for (const name of names) expect(system).toContain(`- ${name} [knowledge]`);
    const mcpBuilder = registry.current().getSkill('mcp-builder');
    const bodyLine = (mcpBuilder?.body ?? '').split('\n').find((l) => l.trim().length > 40) ?? '';
    expect(bodyLine.length).toBeGreaterThan(40);
    expect(system).not.toContain(bodyLine);
  });

  it('loads a skill body with its resource list, reads a reference, and answers a second load briefly', async () => {
    const { agent, model, registry } = await corpusAgent();
    model
      .respond(loadSkill('mcp-builder'))
      .respond(readReference('mcp-builder', 'reference/evaluation.md', 'c2'))
      .respond(loadSkill('mcp-builder', 'c3'))
      .respond(readReference('mcp-builder', '../skill-creator/SKILL.md', 'c4'))
      .respond(loadSkill('not-a-skill', 'c5'))
      .respond(new AIMessage('done'));
    await collect(agent.stream('build me an MCP server', { threadId: 't1' }));
    const [loaded, reference, again, outside, unknown] = await toolMessages(agent, 't1');
    const skill = registry.current().getSkill('mcp-builder');
    expect(loaded?.status).toBe('success');
    expect(String(loaded?.content)).toMatch(/^<skill name="mcp-builder">\n/);
    expect(String(loaded?.content)).toContain(`${(skill?.body ?? '').trim()}\n</skill>`);
    expect(String(loaded?.content)).toContain('- reference/evaluation.md');
    expect(String(loaded?.content)).toContain('- reference/node_mcp_server.md');
    expect(reference?.content).toBe(
      readFileSync(join(corpus, 'mcp-builder/reference/evaluation.md'), 'utf8'),
    );
    expect(again?.content).toBe(
      'Skill "mcp-builder" is already loaded above in this conversation; its instructions have not changed.',
    );
    expect(outside?.status).toBe('error');
    expect(outside?.content).toMatch(/is not a reference file of mcp-builder/);
    expect(unknown?.status).toBe('error');
    expect(unknown?.content).toMatch(/Invalid arguments[\s\S]*name/);
    expect((await agent.getState('t1')).loadedSkills).toEqual(['mcp-builder']);
  });

  it('returns a long skill body whole: the generic tool-output cut does not apply to load_skill', async () => {
    const { agent, model, registry } = await corpusAgent();
    const body = (registry.current().getSkill('claude-api')?.body ?? '').trim();
    expect(body.length).toBeGreaterThan(32_000);
    model.respond(loadSkill('claude-api')).respond(new AIMessage('ok'));
    await collect(agent.stream('use the claude api', { threadId: 't1' }));
    const [loaded] = await toolMessages(agent, 't1');
    expect(String(loaded?.content)).toContain(`${body}\n</skill>`);
    expect(String(loaded?.content)).not.toContain('[truncated:');
  });

  it('loads the body again once the first copy has left the context window', async () => {
    const { agent, model } = await fixture(
      { 'notes/SKILL.md': knowledgeSkill('notes', 'Write everything down.') },
      { contextMessages: 2, compaction: false },
    );
    model
      .respond(loadSkill('notes'))
      .respond(new AIMessage('a'))
      .respond(loadSkill('notes', 'c2'))
      .respond(new AIMessage('b'));
    await collect(agent.stream('one', { threadId: 't1' }));
    await collect(agent.stream('two', { threadId: 't1' }));
    const [first, second] = await toolMessages(agent, 't1');
    expect(first?.content).toContain('Write everything down.');
    expect(second?.content).toContain('Write everything down.');
  });

  it('refuses a listed reference that is a symlink leading out of the skill folder', async () => {
    const { fx, agent, model } = await fixture({
      'notes/SKILL.md': knowledgeSkill('notes', 'Notes.'),
      'notes/ref/ok.md': 'fine',
      'outside.txt': 'secret',
    });
    await symlink(join(fx.dir.path, 'outside.txt'), join(fx.dir.path, 'notes/ref/link.md'));
    await fx.registry.reload();
    expect(fx.registry.current().getSkill('notes')?.resources).toContain('ref/link.md');
    model
      .respond(
        callTools([
          { name: 'read_reference', args: { skill: 'notes', file: 'ref/ok.md' } },
          { name: 'read_reference', args: { skill: 'notes', file: 'ref/link.md' }, id: 'c2' },
        ]),
      )
      .respond(new AIMessage('ok'));
    await collect(agent.stream('read', { threadId: 't1' }));
    const [ok, link] = await toolMessages(agent, 't1');
    expect(ok?.content).toBe('fine');
    expect(link?.status).toBe('error');
    expect(link?.content).not.toContain('secret');
    expect(link?.content).toMatch(/resolves outside the skill folder/);
  });

  it('caps a large reference file', async () => {
    const { agent, model } = await fixture(
      { 'notes/SKILL.md': knowledgeSkill('notes', 'Notes.'), 'notes/big.md': 'x'.repeat(5000) },
      { maxReferenceChars: 1000 },
    );
    model.respond(readReference('notes', 'big.md')).respond(new AIMessage('ok'));
    await collect(agent.stream('read', { threadId: 't1' }));
    const [big] = await toolMessages(agent, 't1');
    expect(big?.content).toBe(`${'x'.repeat(1000)}\n[truncated: 4000 more bytes]`);
  });
});
