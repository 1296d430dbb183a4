import { VFile } from 'vfile';
import { describe, expect, it } from 'vitest';
import { remarkSkill, skillProcessor } from '../src/unified.js';
import { generateBodies } from './markdown-fuzz.js';
import { mutants } from './mutate.js';
import { expectSameResult } from './routes.js';
import { agentSources, skillSources } from './sources.js';
import { TRICKY_BODIES } from './tricky-markdown.js';

/**
 * The unified route (`remarkSkill` on remark's mdast tree) against the fast route (`parseSkill` / `parseAgent`): the
 * same typed skill or agent and the same messages, field by field, on every file below. The corpus and the
 * skills-ref cases are compared in unified-route.corpus.test.ts.
 */
/** The remark tree of every case costs seconds on a loaded 2-core machine: room for it, not a claim about speed. */
const HEAVY = 180_000;

describe('the unified route gives what the fast route gives', () => {
  const skills = skillSources();
  const agents = agentSources();

  it('on the bundled skills and the fixtures (plain and --strict)', { timeout: HEAVY }, () => {
    expect(skills.filter((s) => s.name.startsWith('skills-')).length).toBeGreaterThan(5);
    for (const { text, path } of skills) {
      expectSameResult(text, path);
      expectSameResult(text, path, { strict: true });
    }
  });

  it("on the agent fixtures and the CLI's bundled agents", () => {
    expect(agents.filter((a) => a.name.startsWith('bundled-')).length).toBeGreaterThan(0);
    for (const { text, path } of agents) expectSameResult(text, path, { kind: 'agent' });
  });

  it('on the frontmatter edge cases', () => {
    const cases = [
      '\ufeff---\nname: a\ndescription: d\n---\nBody',
      '---\r\nname: a\r\ndescription: d\r\n---\r\n\r\n## Tools\r\n\r\n### t\r\nentrypoint: bash:true\r\n',
      '---\nname: a\ndescription: d\n---',
      '---\nname: a\ndescription: d\n---   \t\n## Tools\n### t\nentrypoint: bash:true',
      '---\n---\n',
      '---\nname: a\n',
      '----\nname: a\n----\n',
      '\n---\nname: a\n---\n',
      '---\nname: a\ndescription: d\n...\n',
      '---\n- a\n- b\n---\n',
      '---\nname: [a\ndescription: d\n---\n',
      '',
      'no frontmatter at all',
    ];
    for (const text of cases) {
      expectSameResult(text, '/skills/a/SKILL.md', { label: JSON.stringify(text) });
      expectSameResult(text, '/agents/a.md', { kind: 'agent', label: JSON.stringify(text) });
    }
  });

  it('on bodies where a line reader could go wrong, and 500 generated ones', { timeout: HEAVY }, () => {
    const front = '---\nname: a\ndescription: d\nalways_inject: true\n---\n';
    for (const body of [...TRICKY_BODIES, ...generateBodies(500, 11)])
      expectSameResult(front + body, '/skills/a/SKILL.md', { label: JSON.stringify(body) });
  });

  it('on 400 mutants of the skills', { timeout: HEAVY }, () => {
    for (const mutant of mutants(skills, 400, 3))
      expectSameResult(mutant.text, `/skills/${mutant.name}/SKILL.md`, { label: mutant.label });
  });

  it('on 300 mutants of the agents', { timeout: HEAVY }, () => {
    for (const mutant of mutants(agents, 300, 5))
      expectSameResult(mutant.text, `/agents/${mutant.name}.md`, { kind: 'agent', label: mutant.label });
  });
});

describe('remarkSkill', () => {
  const text =
    '---\nname: notes\ndescription: Notes.\nwiki: x\n---\n\n# Notes\n\n## Tools\n\n### add\nentrypoint: bash:true\n';

  it('puts the skill on file.data and the messages on the file, and leaves the tree as remark built it', async () => {
    const processor = skillProcessor();
    const file = new VFile({ path: '/skills/notes/SKILL.md', value: text });
    const tree = processor.parse(file);
    const before = structuredClone(tree);
    await processor.run(tree, file);
    expect(tree).toEqual(before);
    expect(tree.children.map((c) => c.type)).toEqual(['yaml', 'heading', 'heading', 'heading', 'paragraph']);
    expect(file.data.skill?.tools.map((t) => t.name)).toEqual(['add']);
    expect(file.messages.map((m) => `${m.line}:${m.column} ${m.ruleId}`)).toEqual([
      '4:1 unknown-key',
      '11:1 tool-missing-description',
    ]);
  });

  it('finds the frontmatter in a pipeline without remark-frontmatter (it adds the syntax)', async () => {
    const { unified } = await import('unified');
    const { default: remarkParse } = await import('remark-parse');
    const processor = unified().use(remarkParse).use(remarkSkill);
    const file = new VFile({ path: '/skills/notes/SKILL.md', value: text });
    await processor.run(processor.parse(file), file);
    expect(file.data.skill?.name).toBe('notes');
  });

  it('reads an agent file by its name, a skill by SKILL.md, and takes `kind` over the name', async () => {
    const agent = '---\nname: helper\ndescription: Helps.\nmodel: fast\n---\nYou help.\n';
    const run = async (path: string | undefined, value: string, options = {}) => {
      const processor = skillProcessor(options);
      const file = new VFile(path === undefined ? { value } : { path, value });
      await processor.run(processor.parse(file), file);
      return file;
    };
    expect((await run('/agents/helper.md', agent)).data.agent?.body).toBe('You help.');
    expect((await run('/skills/notes/skill.md', text)).data.skill?.name).toBe('notes');
    expect((await run('/skills/notes/NOTES.md', text, { kind: 'skill' })).data.skill?.name).toBe('notes');
    // No path: a skill, its file named SKILL.md in the working folder.
    const unnamed = await run(undefined, text);
    expect(unnamed.data.skill?.file).toBe(`${process.cwd()}/SKILL.md`);
  });

  it('reports a fatal message without throwing, and sets no skill', async () => {
    const processor = skillProcessor();
    const file = new VFile({ path: '/skills/x/SKILL.md', value: '---\nname: x\n' });
    await processor.run(processor.parse(file), file);
    expect(file.data.skill).toBeUndefined();
    expect(file.messages.map((m) => [m.ruleId, m.fatal])).toEqual([['unclosed-frontmatter', true]]);
  });
});
