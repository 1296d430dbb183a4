import { join } from 'node:path';
import { createScriptedModel, type ScriptedReply } from '@birdie/providers';
import { openStore, type Store } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import {
  agentSpec,
  collect,
  knowledgeSkill,
  ofType,
  type SkillsFixture,
  skillsFixture,
  stringArg,
  textOf,
  toolMessages,
  toolSkill,
  useCleanups,
  withAgents,
} from './helpers.js';

const cleanups = useCleanups();

const files = {
  'notes/SKILL.md': toolSkill('notes', [
    {
      name: 'jot',
      entrypoint: 'bash:echo jotted {text}',
      schema: stringArg('text'),
      extra: 'approval: required\n',
    },
  ]),
  'search/SKILL.md': toolSkill('search', [{ name: 'find', entrypoint: 'bash:echo found' }]),
  'style/SKILL.md': knowledgeSkill('style', 'Write short sentences.'),
};

const agents = [agentSpec('scholar', { progressive: true, skills: ['notes', 'search', 'style'] })];

function open(fx: SkillsFixture, store: Store, script: ScriptedReply[]) {
  const model = createScriptedModel(script);
  const agent = createAgent({
    model,
    registry: withAgents(fx.registry, agents),
    policy: fx.policy,
    checkpointer: store.checkpointer,
    options: { cwd: fx.dir.path },
  });
  cleanups.push(() => agent.close());
  return { model, agent };
}

describe('progressive agents: the tool set grows with load_skill', () => {
  it('hides skill tools until their skill is loaded, binds them from the next call, and keeps them across a resume', async () => {
    const fx = await skillsFixture(files);
    cleanups.push(() => fx.dir.cleanup());
    const db = join(fx.dir.path, 'birdie.db');
    const first = openStore({ file: db });
    const a = open(fx, first, [
      { tool_calls: [{ name: 'jot', id: 'j0', args: { text: 'too early' } }] },
      { tool_calls: [{ name: 'load_skill', id: 'l1', args: { name: 'notes' } }] },
      { tool_calls: [{ name: 'jot', id: 'j1', args: { text: 'owls' } }] },
    ]);
    const asked = await collect(a.agent.stream('take notes', { threadId: 's1', agent: 'scholar' }));
    expect(a.model.calls.map((c) => c.tools)).toEqual([
      ['load_skill'],
      ['load_skill'],
      ['jot', 'load_skill'],
    ]);
    const system = textOf(a.model.calls[0]?.messages[0]);
    expect(system).toContain('- notes [tool]');
    expect(system).toContain(
      'call load_skill with a name to read one; its tools become available from your next step',
    );
    const [early, loaded] = await toolMessages(a.agent, 's1');
    expect([early?.status, textOf(early)]).toEqual([
      'error',
      'Error: tool "jot" is not available in this session (disabled or unknown). Available tools: load_skill.',
    ]);
    expect(textOf(loaded)).toBe(
      '<skill name="notes">\nThe notes skill\n</skill>\n\nTools available from your next step: jot.',
    );
    expect(ofType(asked, 'approval-request')[0]?.requests.map((r) => r.id)).toEqual(['j1']);
    await a.agent.close();
    first.close();

    // Another process resumes: the loaded skill is in the checkpoint, so jot is still bound and still runs.
    const second = openStore({ file: db });
    cleanups.push(() => second.close());
    const b = open(fx, second, [
      { text: 'Noted.' },
      { tool_calls: [{ name: 'find', id: 'f1' }] },
      { text: 'ok' },
    ]);
    expect((await b.agent.getState('s1')).loadedSkills).toEqual(['notes']);
    expect((await b.agent.toolsFor('s1')).map((t) => t.name)).toEqual(['jot', 'load_skill']);
    const resumed = await collect(b.agent.resume('s1', { j1: { type: 'approve' } }));
    expect(ofType(resumed, 'tool-end').map((e) => [e.name, e.output])).toEqual([['jot', 'jotted owls\n']]);
    expect(b.model.calls[0]?.tools).toEqual(['jot', 'load_skill']);
    // A later turn still has it; a tool of a skill never loaded is still refused.
    await collect(b.agent.stream('find something', { threadId: 's1' }));
    expect(b.model.calls[1]?.tools).toEqual(['jot', 'load_skill']);
    expect(textOf((await toolMessages(b.agent, 's1')).at(-1))).toMatch(
      /^Error: tool "find" is not available/,
    );
  });

  it('without progressive, an agent gets its skill tools at once and load_skill only for knowledge', async () => {
    const fx = await skillsFixture(files);
    cleanups.push(() => fx.dir.cleanup());
    const store = openStore({ file: join(fx.dir.path, 'birdie.db') });
    cleanups.push(() => store.close());
    const eager = [agentSpec('scholar', { skills: ['notes', 'search', 'style'] })];
    const agent = createAgent({
      model: createScriptedModel([]),
      registry: withAgents(fx.registry, eager),
      policy: fx.policy,
      checkpointer: store.checkpointer,
    });
    cleanups.push(() => agent.close());
    expect((await agent.toolsFor('s1', { agent: 'scholar' })).map((t) => t.name)).toEqual([
      'jot',
      'find',
      'load_skill',
    ]);
  });
});
