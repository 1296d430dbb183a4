import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import type { AgentDefinition, Skill } from '@birdie/skill-parser';
import type { VFileMessage } from 'vfile-message';
import { RULES, registryMessage } from './diagnostics.js';
import type { ScannedAgentDirectory, ScannedDirectory } from './layering.js';
import type {
  DeclaredAgent,
  DeclaredSkill,
  MemoryFileInfo,
  RunFile,
  SkillDirectory,
  TrustDecision,
  WorkspaceDeclarations,
} from './types.js';
import {
  commandFiles,
  DEFAULT_MEMORY_FILE_NAMES,
  memoryFiles,
  settingsFile,
  skillRunFiles,
} from './workspace-files.js';

/** The workspace a project folder belongs to: given, or the folder two levels up (`<workspace>/.birdie/skills`). */
export function workspaceOf(directory: SkillDirectory): string {
  return directory.workspace ?? dirname(dirname(directory.path));
}

/** What one skill declares that can run or reach the prompt: the part a user is asked to trust. */
export function declaredSkill(
  skill: Skill,
  code: { folder: string; runs: RunFile[] } = { folder: dirname(skill.file), runs: [] },
): DeclaredSkill {
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
    folder: code.folder,
    runs: code.runs,
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
 * The trust digest: SHA-256 over everything a trusted workspace adds to what birdie runs or the model reads. This is
 * the one list of what it covers; a change to any of it asks the user again:
 * - each project skill's declarations: its tools and their entrypoints, its MCP server (command, arguments,
 *   environment, URL), `always_inject`, `enabled_by_default`;
 * - the code each skill runs: the real path of its folder (a retargeted symlink is other code), and the bytes of each
 *   file its `node:`/`python:` entrypoints and `bash:` templates name in that folder (code resolving outside the
 *   workspace is refused, never trusted: see `applyTrust`);
 * - each project agent's model, skills, tools, `approve` list, subagents and handoffs;
 * - which memory files (`AGENTS.md`, or the names of the `memory_files` setting, from the repository root down to
 *   the workspace) exist, by path;
 * - the bytes of the project's settings and rules file (`.birdie/settings.json`) if it has one;
 * - the bytes of each of its custom slash commands (`.birdie/commands/*.md`): typing one sends its text as the
 *   user's own message.
 * Prose is not part of it: editing a skill's text, an agent's prompt or an AGENTS.md does not ask again. Lists that
 * are sets are sorted, so reordering one does not either. Version 2 (the version is hashed first): answers stored
 * under version 1 (declarations only) no longer match, so each such folder is asked about once more.
 */
export function declarationsDigest(
  skills: readonly DeclaredSkill[],
  agents: readonly DeclaredAgent[] = [],
  files: {
    workspace?: string;
    memoryFiles?: readonly MemoryFileInfo[];
    settings?: { sha256: string };
    commands?: ReadonlyArray<{ path: string; sha256: string }>;
  } = {},
): string {
  const canonical = [...skills]
    .map((s) => ({ ...s, file: undefined, tools: [...s.tools].sort((a, b) => cmp(a.name, b.name)) }))
    .sort((a, b) => cmp(a.name, b.name));
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
  const base = files.workspace;
  const memory = (files.memoryFiles ?? []).map((f) => (base ? relative(base, f.path) : f.path)).sort(cmp);
  const commands = (files.commands ?? [])
    .map((c) => ({ path: base ? relative(base, c.path) : c.path, sha256: c.sha256 }))
    .sort((a, b) => cmp(a.path, b.path));
  return createHash('sha256')
    .update(`birdie-trust-v${TRUST_DIGEST_VERSION}\n`)
    .update(
      JSON.stringify(
        {
          skills: canonical,
          agents: canonicalAgents,
          memoryFiles: memory,
          settings: files.settings?.sha256 ?? null,
          // Only when there are some: a folder without commands keeps the digest it had before they were covered.
          ...(commands.length > 0 ? { commands } : {}),
        },
        sortedKeys,
      ),
    )
    .digest('hex');
}

/** Bumped whenever what the digest covers changes; every stored answer is then asked again once. */
export const TRUST_DIGEST_VERSION = 2;

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => cmp(a, b)));
}

/**
 * Splits the scanned folders into what loads and what waits for the user's trust. Project folders (skills and agents)
 * are grouped by workspace; a workspace with skills, agents, memory files or a settings file loads only when `trust`
 * says so for its exact digest. A project skill whose folder or code resolves outside its workspace never loads (an
 * error message says why). Everything else (bundled, user, explicit folders) is the user's own choice and always loads.
 */
export async function applyTrust(
  scanned: readonly ScannedDirectory[],
  scannedAgents: readonly ScannedAgentDirectory[],
  trust: TrustDecision,
  memoryFileNames: readonly string[] = DEFAULT_MEMORY_FILE_NAMES,
): Promise<{
  trusted: ScannedDirectory[];
  trustedAgents: ScannedAgentDirectory[];
  untrusted: WorkspaceDeclarations[];
  messages: VFileMessage[];
}> {
  type Group = { skills: ScannedDirectory[]; agents: ScannedAgentDirectory[] };
  const byWorkspace = new Map<string, Group>();
  const group = (directory: SkillDirectory) => {
    const key = workspaceOf(directory);
    const entry = byWorkspace.get(key) ?? { skills: [], agents: [] };
    byWorkspace.set(key, entry);
    return entry;
  };
  // Every project folder names its workspace, so a workspace with nothing but an AGENTS.md is still asked about.
  for (const entry of scanned)
    if (entry.directory.layer === 'project') group(entry.directory).skills.push(entry);
  for (const entry of scannedAgents)
    if (entry.directory.layer === 'project') group(entry.directory).agents.push(entry);
  const refused = new Set<ScannedDirectory | ScannedAgentDirectory>();
  const dropped = new Set<Skill>();
  const messages: VFileMessage[] = [];
  const untrusted: WorkspaceDeclarations[] = [];
  for (const [path, entries] of byWorkspace) {
    const real = await realpath(path).catch(() => path);
    const skills: DeclaredSkill[] = [];
    for (const skill of entries.skills.flatMap((entry) => entry.skills)) {
      const code = await skillRunFiles(skill, real);
      if (code.outside.length > 0) {
        dropped.add(skill);
        messages.push(
          registryMessage(
            `Skill "${skill.name}" is not loaded: its code resolves outside the project folder ${path} (${code.outside.join(', ')}), which trusting the folder does not cover`,
            { file: skill.file, ruleId: RULES.codeOutsideWorkspace, severity: 'error' },
          ),
        );
        continue;
      }
      skills.push(declaredSkill(skill, code));
    }
    const agents = entries.agents.flatMap((entry) => entry.agents.map(declaredAgent));
    const [memory, settings, commands] = await Promise.all([
      memoryFiles(path, memoryFileNames),
      settingsFile(path),
      commandFiles(path),
    ]);
    if (
      skills.length === 0 &&
      agents.length === 0 &&
      memory.length === 0 &&
      !settings &&
      commands.length === 0
    )
      continue;
    const workspace: WorkspaceDeclarations = {
      path,
      folders: [
        ...entries.skills.filter((entry) => entry.skills.length > 0),
        ...entries.agents.filter((entry) => entry.agents.length > 0),
      ].map((entry) => entry.directory.path),
      digest: declarationsDigest(skills, agents, {
        workspace: path,
        memoryFiles: memory,
        ...(settings ? { settings } : {}),
        commands,
      }),
      skills,
      agents,
      memoryFiles: memory,
      ...(settings ? { settings } : {}),
      ...(commands.length > 0 ? { commands } : {}),
    };
    // Awaited, and compared with `true`: a pending Promise or a truthy record must never count as a yes.
    if ((await trust(workspace)) === true) continue;
    for (const entry of [...entries.skills, ...entries.agents]) refused.add(entry);
    untrusted.push(workspace);
  }
  return {
    trusted: scanned.map((entry) =>
      refused.has(entry)
        ? { directory: entry.directory, skills: [] }
        : dropped.size > 0
          ? { directory: entry.directory, skills: entry.skills.filter((skill) => !dropped.has(skill)) }
          : entry,
    ),
    trustedAgents: scannedAgents.map((entry) =>
      refused.has(entry) ? { directory: entry.directory, agents: [] } : entry,
    ),
    untrusted,
    messages,
  };
}
