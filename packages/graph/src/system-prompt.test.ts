import type { Skill } from '@birdie/skill-parser';
import { describe, expect, it } from 'vitest';
import { buildSystemPrompt } from './system-prompt.js';

function skill(name: string, extra: Partial<Skill> = {}): Skill {
  return {
    name,
    version: '1.0.0',
    description: `About ${name}`,
    tags: [],
    toolTags: [],
    triggers: [],
    enabledByDefault: true,
    alwaysInject: false,
    tools: [],
    body: `Body of ${name}.`,
    kind: 'knowledge',
    file: `/skills/${name}/SKILL.md`,
    dir: `/skills/${name}`,
    resources: [],
    ...extra,
  };
}

describe('buildSystemPrompt', () => {
  const always = skill('todo', { alwaysInject: true, kind: 'tool', body: 'Plan first.' });
  const ssh = skill('ssh', { triggers: ['ssh'] });
  const docs = skill('docs');
  const base = {
    allowed: [ssh, always, docs],
    triggered: [],
    catalogBudgetChars: 10_000,
    canLoadSkills: true,
  };

  it('has the catalog (sorted), always-inject bodies, triggered bodies and memory, in tiers', () => {
    const prompt = buildSystemPrompt({
      ...base,
      triggered: [ssh],
      memory: ['likes tea', { id: 'm2', content: 'uses vim' }],
    });
    const catalog = prompt.indexOf('# Skills');
    const standing = prompt.indexOf('# Standing instructions');
    const relevant = prompt.indexOf('# Relevant skills');
    const memory = prompt.indexOf('# What you remember');
    expect(catalog).toBeGreaterThan(0);
    expect(standing).toBeGreaterThan(catalog);
    expect(relevant).toBeGreaterThan(standing);
    expect(memory).toBeGreaterThan(relevant);
    expect(prompt.indexOf('- docs')).toBeLessThan(prompt.indexOf('- ssh'));
    expect(prompt).toContain('- ssh [knowledge]: About ssh (triggers: ssh)');
    expect(prompt).toContain('<skill name="todo">\nPlan first.\n</skill>');
    expect(prompt).toContain('<skill name="ssh">\nBody of ssh.\n</skill>');
    expect(prompt).toContain('- likes tea\n- [m2] uses vim');
    expect(prompt).not.toContain('Body of docs');
  });

  it('is byte-identical for equal inputs, whatever the order skills arrive in', () => {
    const a = buildSystemPrompt({ ...base, triggered: [ssh], memory: ['x'] });
    const b = buildSystemPrompt({ ...base, allowed: [docs, always, ssh], triggered: [ssh], memory: ['x'] });
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
  });

  it('caps the catalog to its budget with a visible count of the rest', () => {
    const many = Array.from({ length: 50 }, (_, i) => skill(`skill-${String(i).padStart(2, '0')}`));
    const prompt = buildSystemPrompt({ ...base, allowed: many, catalogBudgetChars: 300 });
    const listed = prompt.split('\n').filter((l) => l.startsWith('- skill-')).length;
    expect(listed).toBeGreaterThan(0);
    expect(listed).toBeLessThan(50);
    expect(prompt).toContain(`(${50 - listed} more skills not listed)`);
    const catalog = prompt.slice(prompt.indexOf('# Skills'));
    const lines = catalog.split('\n').filter((l) => l.startsWith('- '));
    expect(lines.join('\n').length).toBeLessThanOrEqual(300);
  });

  it('does not inject a triggered skill twice when it is also always-injected', () => {
    const prompt = buildSystemPrompt({ ...base, triggered: [always] });
    expect(prompt.split('<skill name="todo">').length).toBe(2);
  });
});

describe('memoizedSystemPrompt', () => {
  it('returns the same text for equal inputs and rebuilds when an input changes', async () => {
    const { memoizedSystemPrompt } = await import('./system-prompt.js');
    const build = memoizedSystemPrompt();
    const a = skill('a');
    const b = skill('b');
    const base = {
      allowed: [a, b],
      triggered: [],
      catalogBudgetChars: 1000,
      canLoadSkills: true,
      memory: ['m'],
    };
    const first = build(base);
    expect(build({ ...base, allowed: [a, b], memory: ['m'] })).toBe(first);
    expect(build({ ...base, allowed: [a] })).not.toContain('- b');
    expect(build({ ...base, memory: ['other'] })).toContain('- other');
    expect(build({ ...base, triggered: [a] })).toContain('<skill name="a">');
    expect(build(base)).toBe(buildSystemPrompt(base));
  });
});
