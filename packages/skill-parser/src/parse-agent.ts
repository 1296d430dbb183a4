import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import type { VFileMessage } from 'vfile-message';
import { AGENT_FIELDS, type AgentConfig, forbiddenReason } from './agent-fields.js';
import { checkAgentSkillsRules } from './agent-skills.js';
import { finishTriggers } from './agent-triggers.js';
import { type FrontmatterFinder, openAuthoredFile, reportMissingNameAndDescription } from './authored.js';
import { guard, sortMessages } from './diagnostics.js';
import { cleanProse } from './source.js';
import { readSpecField, type SpecData } from './spec-fields.js';
import type { AgentDefinition, AgentPositions, AgentTriggers } from './types.js';

export interface ParseAgentOptions {
  /** Path of the agent file, `NAME.md` (made absolute). Its name without `.md` should equal the agent's `name`. */
  path: string;
}

export interface ParseAgentResult {
  /** Absent when any message is fatal. */
  agent?: AgentDefinition;
  messages: VFileMessage[];
}

/**
 * Parses the text of one agent file: YAML frontmatter (the configuration) and a Markdown body (the system prompt).
 * Never throws: problems are positioned messages, and a failure nothing foresaw is a `parse-failed` error of this file.
 */
export function parseAgent(text: string, options: ParseAgentOptions): ParseAgentResult {
  return parseAgentWith(text, options);
}

/** `parseAgent` with the frontmatter fences found by the caller (the unified route reads them from the mdast tree). */
export function parseAgentWith(
  text: string,
  options: ParseAgentOptions,
  findRange?: FrontmatterFinder,
): ParseAgentResult {
  const file = resolve(options.path);
  return guard(file, () => parse(text, file, findRange));
}

function parse(text: string, file: string, findRange?: FrontmatterFinder): ParseAgentResult {
  const opened = openAuthoredFile(text, file, 'An agent file', {
    nodes: true,
    ...(findRange ? { findRange } : {}),
  });
  if (!('source' in opened)) return opened;
  const { source, reporter, range, front } = opened;
  if (!front) return { messages: sortMessages(reporter.messages) };

  const spec: SpecData = {};
  const config: AgentConfig = {};
  const positions: AgentPositions = {};
  for (const [key, field] of front.fields) {
    const forbidden = forbiddenReason(key);
    if (forbidden) {
      reporter.report(
        'forbidden-key',
        `\`${key}\` ${forbidden}; an agent file may not set it`,
        field.keyStart,
        field.keyEnd,
      );
      continue;
    }
    if (field.value === null || field.value === undefined) continue;
    if (key === 'name' || key === 'description') readSpecField(key, field, source, spec, reporter);
    else if (Object.hasOwn(AGENT_FIELDS, key)) {
      AGENT_FIELDS[key]!({ key, field, base: front.base, source, reporter, config, positions });
    } else {
      reporter.report(
        'unknown-key',
        `Unknown frontmatter key \`${key}\` is ignored`,
        field.keyStart,
        field.keyEnd,
      );
    }
  }
  reportMissingNameAndDescription(front, source, reporter);
  const triggers = finishTriggers(front.fields, config.triggers ?? {}, reporter);
  if (triggers) config.triggers = triggers;
  else delete config.triggers;
  checkAgentSkillsRules(
    spec,
    front.fields,
    { kind: 'file', name: basename(file).replace(/\.md$/i, '') },
    reporter,
  );
  if (reporter.fatal || spec.name === undefined || spec.description === undefined) {
    return { messages: sortMessages(reporter.messages) };
  }
  const frontmatter = cleanProse(source.text.slice(range.valueStart, range.valueEnd));
  const body = cleanProse(source.text.slice(range.bodyStart));
  const agent: AgentDefinition = {
    name: spec.name,
    description: spec.description,
    ...inOrder(config),
    body,
    file,
    digest: agentDigest(frontmatter, body),
    positions,
  };
  return { agent, messages: sortMessages(reporter.messages) };
}

const CONFIG_ORDER = [
  'model',
  'skills',
  'tools',
  'approve',
  'subagents',
  'handoffs',
  'progressive',
  'maxTurns',
  'timeout',
  'temperature',
  'maxRetries',
  'triggers',
] as const satisfies ReadonlyArray<keyof AgentConfig>;

const TRIGGER_ORDER = [
  'schedule',
  'timezone',
  'every',
  'watch',
  'debounce',
  'prompt',
  'overlap',
  'catchUp',
  'session',
] as const satisfies ReadonlyArray<keyof AgentTriggers>;

/** The configuration with its keys in one order, whatever order the file wrote them in. */
function inOrder(config: AgentConfig): AgentConfig {
  const ordered: Record<string, unknown> = {};
  for (const key of CONFIG_ORDER) if (config[key] !== undefined) ordered[key] = config[key];
  if (config.triggers) {
    const triggers: Record<string, unknown> = {};
    for (const key of TRIGGER_ORDER)
      if (config.triggers[key] !== undefined) triggers[key] = config.triggers[key];
    ordered.triggers = triggers;
  }
  return ordered as AgentConfig;
}

/** SHA-256 (hex) of the normalised frontmatter text and body, separated by a fence line. */
export function agentDigest(frontmatter: string, body: string): string {
  return createHash('sha256').update(`${frontmatter}\n---\n${body}`).digest('hex');
}
