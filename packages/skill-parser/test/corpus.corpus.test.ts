import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findFrontmatter } from '../src/frontmatter.js';
import { discoverSkills, loadSkillFile, parseSkill, type Skill } from '../src/index.js';
import { headingText } from '../src/inline-text.js';
import { outlineFromMicromark } from '../src/markdown.js';
import { findToolsSection, mayHaveToolsSection } from '../src/outline.js';
import { createSource } from '../src/source.js';
import { corpus } from './corpus.js';
import { outlineFromMdast } from './remark-reference.js';

interface ManifestTool {
  name: string;
  description: string;
  entrypoint: string;
  schema: unknown;
}
interface ManifestSkill {
  dir: string;
  parsed: {
    name: string;
    version: string;
    description: string;
    tags: string[];
    triggers: string[];
    enabled_by_default: boolean;
    always_inject: boolean;
    tools: ManifestTool[];
    body: string | null;
    mcp_server: { transport: string; command: string; args: string[] } | null;
  };
}

const manifest = JSON.parse(readFileSync(join(corpus, 'birdie', 'MANIFEST.json'), 'utf8')) as {
  skills: ManifestSkill[];
};
const folderOf = (skill: Skill) => basename(skill.dir);

describe('corpus/birdie (the original format)', async () => {
  const { skills, messages } = await discoverSkills(join(corpus, 'birdie'));

  it('discovers all 7 SKILL.MD files with no fatal message', () => {
    expect(skills.map(folderOf)).toEqual(manifest.skills.map((s) => s.dir).sort());
    expect(messages.filter((m) => m.fatal === true)).toEqual([]);
  });

  it.each(manifest.skills.map((s) => [s.dir, s] as const))('%s matches MANIFEST.json', (dir, expected) => {
    const skill = skills.find((s) => folderOf(s) === dir)!;
    const p = expected.parsed;
    expect({
      name: skill.name,
      version: skill.version,
      description: skill.description,
      tags: skill.tags,
      triggers: skill.triggers,
      enabled_by_default: skill.enabledByDefault,
      always_inject: skill.alwaysInject,
      tools: skill.tools.map(({ name, description, entrypoint, schema }) => ({
        name,
        description,
        entrypoint,
        schema,
      })),
      body: skill.body,
    }).toEqual({
      name: p.name,
      version: p.version,
      description: p.description,
      tags: p.tags,
      triggers: p.triggers,
      enabled_by_default: p.enabled_by_default,
      always_inject: p.always_inject,
      tools: p.tools.map(({ name, description, entrypoint, schema }) => ({
        name,
        description,
        entrypoint,
        schema,
      })),
      body: p.body,
    });
    expect(skill.kind).toBe(p.mcp_server ? 'mcp' : p.tools.length ? 'tool' : 'knowledge');
  });

  it('keeps mcp_demo’s server.py as written: the script is not in the folder', () => {
    const demo = skills.find((s) => folderOf(s) === 'mcp_demo')!;
    expect(demo.mcpServer).toEqual({ transport: 'stdio', command: 'python', args: ['server.py'] });
  });

  it('warns only where the Agent Skills standard is not met (display names such as "DuckDuckGo")', () => {
    // The original format used display names: not lower-case/hyphenated, and not the folder's name.
    // And each is a SKILL.MD, which other Agent Skills clients do not find (issue 30, defect 9): a warning at 1:1.
    const expected: Record<string, string[]> = {
      duckduckgo: ['skill-file-name', 'name-format', 'name-folder-mismatch'],
      filesystem: ['skill-file-name', 'name-format', 'name-folder-mismatch'],
      mcp_demo: ['skill-file-name', 'name-format'],
      shell: ['skill-file-name', 'name-format', 'name-folder-mismatch'],
      ssh: ['skill-file-name'],
      todo: ['skill-file-name', 'name-format', 'name-folder-mismatch'],
      weather: ['skill-file-name', 'name-format', 'name-folder-mismatch'],
    };
    const actual: Record<string, string[]> = Object.fromEntries(Object.keys(expected).map((k) => [k, []]));
    for (const m of messages) {
      expect(m.fatal).toBe(false);
      expect(m.line).toBe(m.ruleId === 'skill-file-name' ? 1 : 2);
      actual[basename(join(m.file!, '..'))]!.push(m.ruleId!);
    }
    expect(actual).toEqual(expected);
  });
});

describe('corpus/agentskills (the Agent Skills standard)', async () => {
  const { skills, messages } = await discoverSkills(join(corpus, 'agentskills'));

  it('loads all 14 as knowledge skills with no fatal message', () => {
    expect(skills).toHaveLength(14);
    expect(messages.filter((m) => m.fatal === true)).toEqual([]);
    for (const skill of skills) {
      expect(skill.kind).toBe('knowledge');
      expect(skill.tools).toEqual([]);
      expect(skill.body?.length).toBeGreaterThan(0);
    }
  });

  it('gives claude-api exactly the description warning and template exactly the name warning', () => {
    const byFolder = messages.map((m) => [basename(join(m.file!, '..')), m.ruleId, m.line, m.fatal]);
    expect(byFolder).toEqual([
      ['claude-api', 'description-too-long', 3, false],
      ['template', 'name-folder-mismatch', 2, false],
    ]);
  });

  it('lists the extra files as resources', () => {
    const resources = Object.fromEntries(skills.map((s) => [folderOf(s), s.resources]));
    expect(resources['mcp-builder']).toEqual([
      'LICENSE.txt',
      'reference/evaluation.md',
      'reference/mcp_best_practices.md',
      'reference/node_mcp_server.md',
      'reference/python_mcp_server.md',
    ]);
    expect(resources['skill-creator']).toEqual([
      'LICENSE.txt',
      'agents/analyzer.md',
      'agents/comparator.md',
      'agents/grader.md',
      'references/schemas.md',
    ]);
    expect(resources.template).toEqual([]);
    expect(resources['brand-guidelines']).toEqual(['LICENSE.txt']);
  });

  it('reads the same skills through loadSkillFile', async () => {
    for (const skill of skills) expect((await loadSkillFile(skill.file)).skill).toEqual(skill);
  });
});

describe('the fast path agrees with the Markdown tree', () => {
  it('gives the remark outline for every corpus file, and finds no Tools section where the pre-check rules one out', async () => {
    const files = [
      ...(await discoverSkills(join(corpus, 'birdie'))).skills,
      ...(await discoverSkills(join(corpus, 'agentskills'))).skills,
    ].map((s) => s.file);
    for (const file of files) {
      const source = createSource(readFileSync(file, 'utf8'));
      const range = findFrontmatter(source.text);
      if (range.state !== 'ok') throw new Error(`no frontmatter in ${file}`);
      const tree = outlineFromMdast(source).filter((node) => node.start >= range.bodyStart);
      expect(outlineFromMicromark(source, range.bodyStart, headingText), file).toEqual(tree);
      const fromTree = findToolsSection(source, tree, range.bodyStart);
      if (!mayHaveToolsSection(source.text, range.bodyStart)) expect(fromTree).toBeUndefined();
      expect(parseSkill(source.text, { path: file }).skill?.tools.length).toBe(fromTree?.blocks.length ?? 0);
    }
  });
});
