import type { AgentDefinition, Skill } from '@birdie/skill-parser';
import { warn } from './io.js';
import type { McpHost } from './mcp-host.js';

/** A tool as `tools/list` gives it: the skill's own JSON Schema. */
export interface McpToolListing {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
}

export interface McpResourceListing {
  uri: string;
  name: string;
  description?: string;
  mimeType: string;
}

export interface McpPromptListing {
  name: string;
  description: string;
  arguments: Array<{ name: string; description: string; required: boolean }>;
}

/** A skill's resource: `skill://NAME` (its body) and `skill://NAME/FILE` (a reference file of its folder). */
const SKILL_URI = /^skill:\/\/([^/]+)(?:\/(.+))?$/;

/** The argument of an agent's prompt: what the agent is asked to do. */
const REQUEST = 'request';

const mimeOf = (file: string) =>
  /\.(md|markdown)$/i.test(file)
    ? 'text/markdown'
    : /\.json$/i.test(file)
      ? 'application/json'
      : 'text/plain';

/**
 * The skill tools the session may use (`policy.allowedTools`: grants, defaults, the operator's ceiling), then the
 * tools of the MCP servers its skills declare, named as the agent sees them (see `McpPassThrough`).
 */
export async function listTools(
  host: McpHost,
  sessionKey: string,
  /** The folder the session's tools work in: its MCP servers' root. */
  cwd: string,
): Promise<McpToolListing[]> {
  const skills = host.policy.allowedTools(sessionKey).map(({ tool }) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: { ...tool.schema, type: 'object' } as McpToolListing['inputSchema'],
  }));
  const taken = new Set(skills.map((tool) => tool.name));
  const { tools, errors } = await host.mcpTools.tools(sessionKey, cwd);
  // A server that cannot be reached leaves its tools out; the others are listed (as a turn goes on without them).
  for (const error of errors) warn(host.io, `birdie: ${error.message}`);
  return [
    ...skills,
    ...tools
      .filter((tool) => !taken.has(tool.name))
      .map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: {
          ...tool.definition.function.parameters,
          type: 'object',
        } as McpToolListing['inputSchema'],
      })),
  ];
}

function knowledgeSkills(host: McpHost, sessionKey: string): Skill[] {
  return host.policy.allowedSkills(sessionKey).filter((skill) => skill.kind === 'knowledge');
}

/**
 * The session's knowledge skills as resources, each with the reference files a read of it serves
 * (`readableReferenceFiles`: the rule `readResource` reads by), so nothing listed is then refused.
 */
export async function listResources(host: McpHost, sessionKey: string): Promise<McpResourceListing[]> {
  const { readableReferenceFiles } = await import('@birdie/graph/tools');
  const listed = await Promise.all(
    knowledgeSkills(host, sessionKey).map(async (skill) => [
      {
        uri: `skill://${skill.name}`,
        name: skill.name,
        description: skill.description,
        mimeType: 'text/markdown',
      },
      ...(await readableReferenceFiles(skill)).map((file) => ({
        uri: `skill://${skill.name}/${file}`,
        name: `${skill.name}/${file}`,
        description: `a reference file of the ${skill.name} skill`,
        mimeType: mimeOf(file),
      })),
    ]),
  );
  return listed.flat();
}

/** Why a resource cannot be read (an unknown or disallowed skill, a file not among its references). */
export class McpResourceError extends Error {
  readonly code = 'mcp-resource-unavailable';
}

export function isMcpResourceError(error: unknown): error is McpResourceError {
  return error instanceof McpResourceError;
}

/**
 * Reads `skill://NAME` (the skill's body) or `skill://NAME/FILE` (through `readReferenceFile`: only files the skill
 * lists, resolved inside its folder and files there now, capped as `read_reference` caps them).
 */
export async function readResource(
  host: McpHost,
  sessionKey: string,
  uri: string,
): Promise<{ uri: string; mimeType: string; text: string }> {
  const match = SKILL_URI.exec(uri);
  const skill = match ? knowledgeSkills(host, sessionKey).find((s) => s.name === match[1]) : undefined;
  if (!match || !skill)
    throw new McpResourceError(
      `no resource ${uri}: resources are skill://NAME of this session's knowledge skills`,
    );
  if (match[2] === undefined)
    return { uri, mimeType: 'text/markdown', text: skill.body ?? skill.description };
  const { readReferenceFile, TOOL_LIMITS } = await import('@birdie/graph/tools');
  try {
    const { text, more } = await readReferenceFile(skill, decodeURI(match[2]), TOOL_LIMITS.maxReferenceChars);
    return {
      uri,
      mimeType: mimeOf(match[2]),
      text: more > 0 ? `${text}\n[truncated: ${more} more bytes]` : text,
    };
  } catch (error) {
    throw new McpResourceError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

function agentsOf(host: McpHost): readonly AgentDefinition[] {
  return host.registry.current().agents.filter((agent) => host.policy.isAgentAllowed(agent.name));
}

/** The agents the session may use, as prompts: the agent's instructions with the user's request. */
export function listPrompts(host: McpHost): McpPromptListing[] {
  return agentsOf(host).map((agent) => ({
    name: agent.name,
    description: agent.description,
    arguments: [{ name: REQUEST, description: `what to ask the ${agent.name} agent`, required: false }],
  }));
}

/** An agent's prompt: its instructions, then the request (when given), as one user message. */
export function getPrompt(
  host: McpHost,
  name: string,
  args: Record<string, string> = {},
):
  | { description: string; messages: Array<{ role: 'user'; content: { type: 'text'; text: string } }> }
  | undefined {
  const agent = agentsOf(host).find((a) => a.name === name);
  if (!agent) return undefined;
  const request = args[REQUEST]?.trim();
  const text = request ? `${agent.body}\n\n${request}` : agent.body;
  return { description: agent.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
}
