import { basename, resolve } from 'node:path';
import type { Root } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkParse from 'remark-parse';
import { type Processor, unified } from 'unified';
import type { VFile } from 'vfile';
import { SKILL_FILE_NAMES } from './discover.js';
import { frontmatterFromTree, outlineFromTree } from './mdast-structure.js';
import { parseAgentWith } from './parse-agent.js';
import { parseSkillWith } from './parse-skill.js';
import type { AgentDefinition, Skill } from './types.js';

export interface RemarkSkillOptions {
  /**
   * What the file is. Default: `skill` for a file named `SKILL.md`, `SKILL.MD` or `skill.md` (or with no path),
   * `agent` for any other name (an agent file is `NAME.md`).
   */
  kind?: 'skill' | 'agent';
  /** As `parseSkill`'s `strict`: the Agent Skills standard's rules are errors (skills only). */
  strict?: boolean;
}

declare module 'vfile' {
  interface DataMap {
    /** The typed skill, set by `remarkSkill` when the file has no fatal message. */
    skill: Skill;
    /** The typed agent, set by `remarkSkill` on an agent file that has no fatal message. */
    agent: AgentDefinition;
  }
}

/**
 * The skill parser as a unified plugin: `unified().use(remarkParse).use(remarkFrontmatter).use(remarkSkill)`. It reads
 * the frontmatter and the outline (root-level headings and fenced code) from the mdast tree, then checks the file
 * exactly as `parseSkill` / `parseAgent` do: the typed result goes on `file.data.skill` (or `file.data.agent`), the
 * messages (same ruleIds, positions and `fatal`) on `file.messages`. It never throws, and it does not change the
 * tree, so lint rules and other plugins run beside it. It adds remark-frontmatter's syntax itself, so a pipeline that
 * forgets it still finds the frontmatter. `skill.resources` is `[]`: the plugin reads no folder (`loadSkillFile` does).
 */
export function remarkSkill(this: Processor, options: RemarkSkillOptions = {}) {
  remarkFrontmatter.call(this);
  return (tree: Root, file: VFile): undefined => {
    const text = String(file);
    const name = file.path === undefined ? undefined : basename(file.path);
    const kind =
      options.kind ??
      (name === undefined || (SKILL_FILE_NAMES as readonly string[]).includes(name) ? 'skill' : 'agent');
    const path = resolve(file.cwd, file.path ?? (kind === 'skill' ? 'SKILL.md' : 'agent.md'));
    const findRange = frontmatterFromTree(tree);
    if (kind === 'agent') {
      const { agent, messages } = parseAgentWith(text, { path }, findRange);
      if (agent) file.data.agent = agent;
      file.messages.push(...messages);
    } else {
      const parseOptions = { path, ...(options.strict ? { strict: true } : {}) };
      const structure = { findRange, outline: outlineFromTree(tree) };
      const { skill, messages } = parseSkillWith(text, parseOptions, structure);
      if (skill) file.data.skill = skill;
      file.messages.push(...messages);
    }
    return undefined;
  };
}

/**
 * `unified().use(remarkParse).use(remarkSkill, options)` (remark-frontmatter included, see above): a processor that
 * parses and checks; `processor.parse(file)` gives the tree, `await processor.run(tree, file)` the skill and messages.
 */
export function skillProcessor(options: RemarkSkillOptions = {}) {
  return unified().use(remarkParse).use(remarkSkill, options);
}
