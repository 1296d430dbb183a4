import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import type { AgentDefinition, Skill } from '@birdie/skill-parser';
import type { ScannedAgentDirectory, ScannedDirectory } from './layering.js';
import type {
  DeclaredAgent,
  DeclaredSkill,
  SkillDirectory,
  TrustDecision,
  WorkspaceDeclarations,
} from './types.js';

/** The workspace a project folder belongs to: given, or the folder two levels up (`<workspace>/.birdie/skills`). */
export function workspaceOf(directory: SkillDirectory): string {
  return directory.workspace ?? dirname(dirname(directory.path));
}

/** What one skill declares that can run or reach the prompt: the part a user is asked to trust. */
export function declaredSkill(skill: Skill): DeclaredSkill {
  const server = skill.mcpServer;
  return {
    name: skill.name,
    file: skill.file,
    tools: skill.tools.map((tool) => ({ name: tool.name, entrypoint: tool.entrypoint })),
    ...(server
      ? {
          mcp:
            server.transport === 'stdio'
              ? {
                  command: server.command,
                  args: [...server.args],
                  ...(server.env ? { env: { ...server.env } } : {}),
                  ...(server.cwd ? { cwd: server.cwd } : {}),
                }
              : { url: server.url },
        }
      : {}),
    alwaysInject: skill.alwaysInject,
    enabledByDefault: skill.enabledByDefault,
  };
}

/** What one agent declares that decides what it may do: the part a user is asked to trust. */
export function declaredAgent(agent: AgentDefinition): DeclaredAgent {
  const lists = ['skills', 'tools', 'approve', 'subagents', 'handoffs'] as const;
  const declared: DeclaredAgent = {
    name: agent.name,
    file: agent.file,
    ...(agent.model !== undefined ? { model: agent.model } : {}),
  };
  for (const key of lists) if (agent[key] !== undefined) declared[key] = [...agent[key]!];
  return declared;
}

/**
 * SHA-256 over a workspace's declarations in a canonical order: adding a skill or a tool, changing an entrypoint,
 * an MCP command, argument, environment or URL, or turning on `always_inject` gives a new digest (and a new question);
 * so does adding an agent or changing its model, skills, tools, `approve` list, subagents or handoffs. Prose is not
 * part of it: editing a skill's text or an agent's prompt does not ask again. A workspace without agents has the
 * digest it had before agents existed, so answers given then still hold.
 */
export function declarationsDigest(
  skills: readonly DeclaredSkill[],
  agents: readonly DeclaredAgent[] = [],
): string {
  const canonical = [...skills]
    .map((s) => ({ ...s, file: undefined, tools: [...s.tools].sort((a, b) => cmp(a.name, b.name)) }))
    .sort((a, b) => cmp(a.name, b.name));
  const hash = createHash('sha256').update(JSON.stringify(canonical, sortedKeys));
  if (agents.length > 0) {
    // The lists are sets: reordering one does not ask again.
    const canonicalAgents = [...agents]
      .map((a) => ({
        ...a,
        file: undefined,
        ...Object.fromEntries(
          (['skills', 'tools', 'approve', 'subagents', 'handoffs'] as const)
            .filter((key) => a[key] !== undefined)
            .map((key) => [key, [...a[key]!].sort(cmp)]),
        ),
      }))
      .sort((a, b) => cmp(a.name, b.name));
    hash.update('\nagents\n').update(JSON.stringify(canonicalAgents, sortedKeys));
  }
  return hash.digest('hex');
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => cmp(a, b)));
}

/**
 * Splits the scanned folders into what loads and what waits for the user's trust. Project folders (skills and agents)
 * are grouped by workspace; a workspace with skills or agents loads only when `trust` says so for its exact
 * declarations. Everything else (bundled, user, explicit folders) is the user's own choice and always loads.
 */
export function applyTrust(
  scanned: readonly ScannedDirectory[],
  scannedAgents: readonly ScannedAgentDirectory[],
  trust: TrustDecision,
): {
  trusted: ScannedDirectory[];
  trustedAgents: ScannedAgentDirectory[];
  untrusted: WorkspaceDeclarations[];
} {
  type Group = { skills: ScannedDirectory[]; agents: ScannedAgentDirectory[] };
  const byWorkspace = new Map<string, Group>();
  const group = (directory: SkillDirectory) => {
    const key = workspaceOf(directory);
    const entry = byWorkspace.get(key) ?? { skills: [], agents: [] };
    byWorkspace.set(key, entry);
    return entry;
  };
  for (const entry of scanned) {
    if (entry.directory.layer === 'project' && entry.skills.length > 0)
      group(entry.directory).skills.push(entry);
  }
  for (const entry of scannedAgents) {
    if (entry.directory.layer === 'project' && entry.agents.length > 0)
      group(entry.directory).agents.push(entry);
  }
  const refused = new Set<ScannedDirectory | ScannedAgentDirectory>();
  const untrusted: WorkspaceDeclarations[] = [];
  for (const [path, entries] of byWorkspace) {
    const skills = entries.skills.flatMap((entry) => entry.skills.map(declaredSkill));
    const agents = entries.agents.flatMap((entry) => entry.agents.map(declaredAgent));
    const workspace: WorkspaceDeclarations = {
      path,
      folders: [...entries.skills, ...entries.agents].map((entry) => entry.directory.path),
      digest: declarationsDigest(skills, agents),
      skills,
      agents,
    };
    if (trust(workspace)) continue;
    for (const entry of [...entries.skills, ...entries.agents]) refused.add(entry);
    untrusted.push(workspace);
  }
  return {
    trusted: scanned.map((entry) =>
      refused.has(entry) ? { directory: entry.directory, skills: [] } : entry,
    ),
    trustedAgents: scannedAgents.map((entry) =>
      refused.has(entry) ? { directory: entry.directory, agents: [] } : entry,
    ),
    untrusted,
  };
}
