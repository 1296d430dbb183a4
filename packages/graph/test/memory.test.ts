import { readFileSync } from 'node:fs';
import { createScriptedModel, type ScriptedReply } from '@birdie/providers';
import { describe, expect, it } from 'vitest';
import { createSkillTool, type LongTermMemory, type MemoryRecord, TOOL_LIMITS } from '../src/index.js';
import { agentOn, collect, ofType, skillsFixture, textOf, toolMessages, useCleanups } from './helpers.js';

const cleanups = useCleanups();
const bundled = readFileSync(new URL('../../../skills/memory/SKILL.md', import.meta.url), 'utf8');

/** The application's memory (the CLI wraps the store's memory repo): here a list in memory. */
function memoryStore(): LongTermMemory & { entries: MemoryRecord[] } {
  let next = 1;
  const entries: MemoryRecord[] = [];
  return {
    entries,
    list: () => [...entries],
    add: async (content) => {
      const record = { id: String(next++), content };
      entries.push(record);
      return record;
    },
    remove: (id) => {
      const at = entries.findIndex((e) => e.id === id);
      if (at === -1) return false;
      entries.splice(at, 1);
      return true;
    },
  };
}

async function setup(script: ScriptedReply[], extra: Record<string, string> = {}) {
  const fx = await skillsFixture({ 'memory/SKILL.md': bundled, ...extra });
  const model = createScriptedModel(script);
  return { fx, model, agent: agentOn(cleanups, fx, model) };
}

describe('builtin memory tools (the bundled memory skill)', () => {
  it('are off by default; enabled, remember and forget ask first and recall does not', async () => {
    const memory = memoryStore();
    const { fx, agent } = await setup([
      { tool_calls: [{ name: 'remember', id: 'm1', args: { content: 'Prefers tea' } }] },
      { tool_calls: [{ name: 'recall', id: 'm2', args: { query: 'TEA' } }] },
      { tool_calls: [{ name: 'forget', id: 'm3', args: { id: '1' } }] },
      { tool_calls: [{ name: 'recall', id: 'm4' }] },
      { text: 'done' },
    ]);
    expect((await agent.toolsFor('s1')).map((t) => t.name)).toEqual([]);
    fx.policy.enable('s1', 'memory');
    expect((await agent.toolsFor('s1')).map((t) => t.name)).toEqual(['remember', 'recall', 'forget']);
    const turn = { memoryStore: memory };

    const first = await collect(agent.stream('remember that I like tea', { threadId: 's1', ...turn }));
    expect(ofType(first, 'approval-request')[0]?.requests).toEqual([
      expect.objectContaining({ id: 'm1', tool: 'remember', skill: 'memory', reason: 'approval-required' }),
    ]);
    expect(memory.entries).toEqual([]);
    const second = await collect(agent.resume('s1', { m1: { type: 'approve' } }, turn));
    expect(ofType(second, 'approval-request')[0]?.requests).toEqual([
      expect.objectContaining({ id: 'm3', tool: 'forget', args: { id: '1' } }),
    ]);
    await collect(agent.resume('s1', { m3: { type: 'approve' } }, turn));
    expect((await toolMessages(agent, 's1')).map((m) => [m.tool_call_id, m.status, textOf(m)])).toEqual([
      ['m1', 'success', 'Remembered [1]: Prefers tea'],
      ['m2', 'success', '- [1] Prefers tea'],
      ['m3', 'success', 'Forgot [1].'],
      ['m4', 'success', 'Nothing is remembered yet.'],
    ]);
    expect(memory.entries).toEqual([]);
  });

  it('save without asking when approvals are off, and fail clearly without a memory store', async () => {
    const memory = memoryStore();
    const { fx, agent } = await setup([
      { tool_calls: [{ name: 'remember', id: 'm1', args: { content: 'Lives in Lyon' } }] },
      { tool_calls: [{ name: 'forget', id: 'm2', args: { id: '42' } }] },
      { text: 'ok' },
      { tool_calls: [{ name: 'recall', id: 'm3' }] },
      { text: 'ok' },
    ]);
    fx.policy.enable('s1', 'memory');
    const events = await collect(
      agent.stream('note it', { threadId: 's1', approval: 'never', memoryStore: memory }),
    );
    expect(ofType(events, 'approval-request')).toEqual([]);
    expect(memory.entries).toEqual([{ id: '1', content: 'Lives in Lyon' }]);
    await collect(agent.stream('what do you know', { threadId: 's1' }));
    expect((await toolMessages(agent, 's1')).map((m) => [m.status, textOf(m)])).toEqual([
      ['success', 'Remembered [1]: Lives in Lyon'],
      ['error', 'Error: No memory has the id "42".'],
      [
        'error',
        'Error: Long-term memory is not available in this session (the application gave the agent no memory store).',
      ],
    ]);
  });

  it('cannot run outside a session: `birdie tool` gets builtin-only', async () => {
    const { fx } = await setup([]);
    const skill = fx.registry.current().getSkill('memory');
    const tool = skill?.tools.find((t) => t.name === 'remember');
    if (!skill || !tool) throw new Error('no memory skill');
    const built = createSkillTool(skill, tool, TOOL_LIMITS).build({ content: 'x' });
    if (!built.ok) throw new Error(built.error);
    const result = await built.invocation.run({ cwd: fx.dir.path });
    expect(result).toMatchObject({ ok: false, code: 'builtin-only' });
    expect(result.content).toBe(
      "Error (builtin-only): builtin:remember is provided by the agent itself (it needs the user's store: long-term memory or scheduled tasks), so it runs only inside a session, not on its own",
    );
  });

  it('keep the memory store from node: tools, which see only signal, cwd and env', async () => {
    const { agent } = await setup([{ tool_calls: [{ name: 'peek', id: 'p1' }] }, { text: 'ok' }], {
      'peek/SKILL.md':
        '---\nname: peek\ndescription: Peek\nenabled_by_default: true\n---\n\n## Tools\n\n### peek\ndescription: What a node tool is given\nentrypoint: node:peek.mjs#peek\nschema:\n  type: object\n  properties: {}\n',
      'peek/peek.mjs':
        'export function peek(args, context) { return Object.keys(context).sort().join(","); }\n',
    });
    await collect(agent.stream('peek', { threadId: 's1', memoryStore: memoryStore() }));
    expect(textOf((await toolMessages(agent, 's1'))[0])).toBe('cwd,env,signal');
  });
});
