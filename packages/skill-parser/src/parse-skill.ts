import { basename, dirname, resolve } from 'node:path';
import type { VFileMessage } from 'vfile-message';
import { checkAgentSkillsRules } from './agent-skills.js';
import { type FrontmatterFinder, openAuthoredFile, reportMissingNameAndDescription } from './authored.js';
import { guard, type Reporter, sortMessages } from './diagnostics.js';
import type { Field } from './frontmatter.js';
import { headingText } from './inline-text.js';
import { MAX_SETEXT_HEADINGS } from './limits.js';
import { outlineFromLines } from './line-outline.js';
import { outlineFromMicromark } from './markdown.js';
import { parseMcpServer } from './mcp.js';
import {
  findToolsSection,
  mayHaveToolsSection,
  type OutlineNode,
  type OutlineReader,
  setextPastLimit,
  type ToolsSection,
} from './outline.js';
import { checkPortability } from './portability.js';
import { cleanProse, lineEnd, type Source } from './source.js';
import { readSpecField, SPEC_FIELDS, type SpecData } from './spec-fields.js';
import { parseToolBlock } from './tool-block.js';
import type { McpServerConfig, Skill, SkillTool } from './types.js';
import { fieldSchemas, splitAllowedTools, zodReason } from './values.js';

export interface ParseSkillOptions {
  /** Path of the SKILL.md file (made absolute); its folder is the skill's `dir`. */
  path: string;
  /**
   * Other files of the skill folder, relative and `/`-separated (as `discoverSkills` lists them). They become
   * `resources`, and stdio MCP `args` naming one of them resolve against the folder.
   */
  resources?: readonly string[];
  /**
   * The Agent Skills standard's rules are errors, and keys outside the standard (birdie's own included) are reported
   * (`non-standard-key`): for authors who publish to other clients (`birdie skills check --strict`).
   */
  strict?: boolean;
}

export interface ParseSkillResult {
  /** Absent when any message is fatal. */
  skill?: Skill;
  messages: VFileMessage[];
}

type Frontmatter = SpecData &
  Partial<{
    version: string;
    tags: string[];
    tool_tags: string[];
    triggers: string[];
    enabled_by_default: boolean;
    always_inject: boolean;
  }>;

/**
 * Parses the text of one SKILL.md. Never throws: problems are messages, and a failure nothing foresaw (a bug) is a
 * `parse-failed` error of this file, so that it cannot cost the skills around it.
 */
export function parseSkill(text: string, options: ParseSkillOptions): ParseSkillResult {
  return parseSkillWith(text, options, {});
}

/** Where a route finds the Markdown structure: the text's own readers by default, or a tree it already has. */
export interface MarkdownStructure {
  findRange?: FrontmatterFinder;
  outline?: OutlineReader;
}

/** The fast route's outline: line by line, micromark for the bodies the line reader leaves to it. */
const outlineFromText: OutlineReader = (source, bodyStart) =>
  outlineFromLines(source, bodyStart, headingText) ?? outlineFromMicromark(source, bodyStart, headingText);

/** `parseSkill` with the structure read by the caller (the unified route reads it from the mdast tree). */
export function parseSkillWith(
  text: string,
  options: ParseSkillOptions,
  structure: MarkdownStructure,
): ParseSkillResult {
  const file = resolve(options.path);
  return guard(file, () => parse(text, file, options, structure));
}

function parse(
  text: string,
  file: string,
  options: ParseSkillOptions,
  structure: MarkdownStructure,
): ParseSkillResult {
  const dir = dirname(file);
  const opened = openAuthoredFile(text, file, 'SKILL.md', {
    strict: options.strict === true,
    ...(structure.findRange ? { findRange: structure.findRange } : {}),
  });
  if (!('source' in opened)) return opened;
  const { source, reporter, range, front } = opened;
  // Flow style is looked for only in YAML that reads: in broken YAML the errors say more.
  checkPortability(text, file, source, front && !front.broken ? range : undefined, reporter);
  const resources = [...(options.resources ?? [])].sort();
  const resourceSet = new Set(resources);

  // Both routes apply the pre-check (a body that cannot hold a Tools section has none in any tree) and the limit.
  let nodes: OutlineNode[] = [];
  if (mayHaveToolsSection(source.text, range.bodyStart)) {
    const excess = setextPastLimit(source.text, range.bodyStart);
    if (excess < 0) {
      nodes = (structure.outline ?? outlineFromText)(source, range.bodyStart);
    } else {
      reporter.report(
        'too-many-setext-headings',
        `More than ${MAX_SETEXT_HEADINGS} lines are underlined with \`---\` or \`===\`; the body is not read`,
        excess,
        lineEnd(source.text, excess),
      );
    }
  }
  const section = findToolsSection(source, nodes, range.bodyStart);
  const tools = section ? readTools(source, section, reporter) : [];

  if (!front) return { messages: sortMessages(reporter.messages) };
  const data: Frontmatter = {};
  let mcpServer: McpServerConfig | undefined;
  for (const [rawKey, field] of front.fields) {
    const key = rawKey === 'allowed_tools' ? 'allowed-tools' : rawKey;
    if (options.strict && rawKey !== key)
      nonStandard(rawKey, field, reporter, `the standard spells it \`${key}\``);
    else if (
      options.strict &&
      !SPEC_FIELDS.has(key) &&
      (key === 'mcp_server' || Object.hasOwn(fieldSchemas, key))
    )
      nonStandard(rawKey, field, reporter, 'a birdie key');
    if (field.value === null || field.value === undefined) continue;
    if (key === 'mcp_server') {
      mcpServer = parseMcpServer(field, front.base, dir, resourceSet, reporter);
    } else if (Object.hasOwn(fieldSchemas, key)) {
      readField(key as keyof typeof fieldSchemas, field, source, data, reporter);
    } else if (SPEC_FIELDS.has(key)) {
      readSpecField(key, field, source, data, reporter);
    } else {
      reporter.report(
        'unknown-key',
        `Unknown frontmatter key \`${rawKey}\` is ignored`,
        field.keyStart,
        field.keyEnd,
      );
    }
  }
  reportMissingNameAndDescription(front, source, reporter);
  checkAgentSkillsRules(data, front.fields, { kind: 'folder', name: basename(dir) }, reporter);
  if (reporter.fatal || data.name === undefined || data.description === undefined) {
    return { messages: sortMessages(reporter.messages) };
  }

  const alwaysInject = data.always_inject ?? false;
  const skill: Skill = {
    name: data.name,
    version: data.version ?? '1.0.0',
    description: data.description,
    tags: data.tags ?? [],
    toolTags: data.tool_tags ?? [],
    triggers: data.triggers ?? [],
    enabledByDefault: data.enabled_by_default ?? true,
    alwaysInject,
    ...(data.license !== undefined ? { license: data.license } : {}),
    ...(data.compatibility !== undefined ? { compatibility: data.compatibility } : {}),
    ...(data.metadata !== undefined ? { metadata: data.metadata } : {}),
    ...(data['allowed-tools'] !== undefined
      ? { allowedTools: splitAllowedTools(data['allowed-tools']) }
      : {}),
    ...(mcpServer ? { mcpServer } : {}),
    tools,
    body: readBody(source, range.bodyStart, section, tools.length > 0, alwaysInject),
    kind: mcpServer ? 'mcp' : tools.length > 0 ? 'tool' : 'knowledge',
    file,
    dir,
    resources,
  };
  return { skill, messages: sortMessages(reporter.messages) };
}

function nonStandard(key: string, field: Field, reporter: Reporter, what: string): void {
  reporter.report(
    'non-standard-key',
    `\`${key}\` is not an Agent Skills standard key (${what}): other clients refuse the file`,
    field.keyStart,
    field.keyEnd,
  );
}

function readField(
  key: keyof typeof fieldSchemas,
  field: Field,
  source: Source,
  data: Frontmatter,
  reporter: Reporter,
) {
  const parsed = fieldSchemas[key].safeParse(field.value);
  if (!parsed.success) {
    reporter.report(
      'invalid-type',
      `\`${key}\`: ${zodReason(parsed.error)}`,
      field.valueStart,
      field.valueEnd,
    );
    return;
  }
  // `version: 1.10` would otherwise become "1.1": keep what the author wrote.
  const value =
    key === 'version' && typeof field.value === 'number'
      ? source.text.slice(field.valueStart, field.valueEnd)
      : parsed.data;
  (data as Record<string, unknown>)[key] = value;
}

function readTools(source: Source, section: ToolsSection, reporter: Reporter): SkillTool[] {
  const tools: SkillTool[] = [];
  const seen = new Set<string>();
  for (const block of section.blocks) {
    const tool = parseToolBlock(source, block, reporter);
    if (seen.has(block.name)) {
      reporter.report(
        'duplicate-tool',
        `Tool \`${block.name}\` is declared twice in this skill`,
        block.headingStart,
        block.headingEnd,
      );
      continue;
    }
    seen.add(block.name);
    if (tool) tools.push(tool);
  }
  if (section.blocks.length === 0) {
    reporter.report(
      'empty-tools-section',
      '`## Tools` has no `### tool` block; its text is read as prose',
      section.headingStart,
      section.headingEnd,
    );
  } else {
    // Text before the first tool block belongs to no tool: the model would never read it.
    const intro = source.text.slice(section.headingEnd, section.blocks[0]!.headingStart);
    const first = intro.search(/\S/);
    if (first >= 0) {
      const start = section.headingEnd + first;
      reporter.report(
        'tools-section-prose',
        'Text under `## Tools` before the first `### tool` block is not shown to the model',
        start,
        lineEnd(source.text, start),
      );
    }
  }
  for (const start of section.extraHeadings) {
    reporter.report(
      'duplicate-tools-section',
      'Only the first `## Tools` section is read; this one is ignored',
      start,
      lineEnd(source.text, start),
    );
  }
  return tools;
}

/**
 * No tools: the whole body (a Tools section without tool blocks included; one whose blocks all failed left out). Tools with `always_inject`: the prose before `## Tools`.
 * Tools without it: `null` (the model sees the tools, not the prose). Blank prose is `null` too.
 */
function readBody(
  source: Source,
  bodyStart: number,
  section: ToolsSection | undefined,
  hasTools: boolean,
  alwaysInject: boolean,
): string | null {
  const { text } = source;
  let prose: string;
  // A Tools section without tool blocks is prose about tools: the model reads it with the rest.
  if (!section || section.blocks.length === 0) prose = text.slice(bodyStart);
  else if (hasTools) {
    if (!alwaysInject) return null;
    prose = text.slice(bodyStart, section.headingStart);
  } else prose = text.slice(bodyStart, section.headingStart) + text.slice(section.end);
  const body = cleanProse(prose);
  return body === '' ? null : body;
}
