import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { builtinTool } from './progressive.js';
import type { DeclaredTool } from './tool.js';
import { addFound, selectTools } from './tool-selection.js';

const tool = (name: string, kind: 'skill' | 'builtin' = 'skill', skill = 'demo'): DeclaredTool =>
  kind === 'builtin'
    ? builtinTool(name, `The ${name} tool`, { type: 'object', properties: {} }, async () => ({ content: '' }))
    : {
        ...builtinTool(name, `The ${name} tool`, { type: 'object', properties: {} }, async () => ({
          content: '',
        })),
        kind,
        skill,
      };

const list = (tools: DeclaredTool[]) => ({ tools, byName: new Map(tools.map((t) => [t.name, t])) });
const findTools = tool('find_tools', 'builtin');
const many = list([tool('load_skill', 'builtin'), ...Array.from({ length: 50 }, (_, i) => tool(`t${i}`))]);
const base = {
  budget: { maxTools: 10, maxChars: 100_000 },
  found: [] as string[],
  messages: [],
  pinned: new Set<string>(),
  pinnedSkills: new Set<string>(),
  findTools,
};
const ran = (name: string, status: 'success' | 'error' = 'success') => [
  new AIMessage({ content: '', tool_calls: [{ id: `id-${name}`, name, args: {} }] }),
  new ToolMessage({ tool_call_id: `id-${name}`, name, content: 'ok', status }),
];

describe('selectTools', () => {
  it('binds everything under the budget', () => {
    const small = list([tool('a'), tool('b')]);
    const selection = selectTools(small, base);
    expect(selection.limited).toBe(false);
    expect(selection.tools.map((t) => t.name)).toEqual(['a', 'b']);
  });

  it('over it: builtins, then found (newest first) and recently used tools, within the budget, then find_tools', () => {
    const messages = [new HumanMessage('hi'), ...ran('t40'), ...ran('t41', 'error')];
    const found = Array.from({ length: 12 }, (_, i) => `t${i}`);
    const selection = selectTools(many, { ...base, found, messages });
    const names = selection.tools.map((t) => t.name);
    expect(names).toHaveLength(10);
    expect(names[0]).toBe('load_skill');
    expect(names.at(-1)).toBe('find_tools');
    // The eight places left go to the newest finds (sent in the toolset's order); older finds and the recently used
    // tool do not fit.
    expect(names.slice(1, 9)).toEqual(['t4', 't5', 't6', 't7', 't8', 't9', 't10', 't11']);
    expect(selection.held.map((t) => t.name)).toContain('t40');
    // With room, a tool that ran is kept; a failed or refused call does not bind its tool.
    const roomy = selectTools(many, {
      ...base,
      budget: { maxTools: 30, maxChars: 100_000 },
      found,
      messages,
    });
    expect(roomy.because.get('t40')).toBe('recent');
    expect(roomy.because.has('t41')).toBe(false);
    expect(roomy.searchable.map((t) => t.name)).not.toContain('load_skill');
  });

  it('holds back a skill tool named find_tools: the builtin keeps the name', () => {
    const clash = list([...many.tools, tool('find_tools')]);
    const selection = selectTools(clash, base);
    expect(selection.byName.get('find_tools')).toBe(findTools);
    expect(selection.searchable.some((t) => t.name === 'find_tools')).toBe(false);
  });

  it('keeps the best-ranked results of one find when the budget holds only some, and says which bound was full', () => {
    // One find ranked t20 > t21 > t22 > t23 > t24; foundTools keeps the best last.
    const found = addFound(['t1'], ['t24', 't23', 't22', 't21', 't20']);
    const selection = selectTools(many, { ...base, budget: { maxTools: 5, maxChars: 100_000 }, found });
    expect([...selection.because].filter(([, why]) => why === 'found').map(([n]) => n)).toEqual([
      't20',
      't21',
      't22',
    ]);
    expect([...selection.left]).toEqual([
      ['t23', 'tools'],
      ['t24', 'tools'],
      ['t1', 'tools'],
    ]);
    // What a further find would make the next step bind.
    const next = selection.afterFinding(['t30']);
    expect(next.byName.has('t30')).toBe(true);
    expect(next.byName.has('t22')).toBe(false);
  });
});
