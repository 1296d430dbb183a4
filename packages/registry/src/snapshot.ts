import type { AgentDefinition, Skill } from '@birdie/skill-parser';
import type { VFileMessage } from 'vfile-message';
import { checkAgents } from './agent-checks.js';
import { compareText } from './diagnostics.js';
import { checkEntrypoints } from './entrypoint-checks.js';
import { deepFreeze } from './freeze.js';
import {
  claimTools,
  resolveAgentLayers,
  resolveLayers,
  type ScannedAgentDirectory,
  type ScannedDirectory,
} from './layering.js';
import { suggestNames } from './suggest.js';
import { TriggerMatcher } from './trigger-matcher.js';
import type {
  McpServerEntry,
  RegistrySnapshot,
  SkillDirectory,
  TaggedToolEntry,
  ToolEntry,
  TriggerOptions,
  WorkspaceDeclarations,
} from './types.js';

export interface SnapshotInput {
  version: number;
  /** Folders in increasing precedence with the skills each yielded. */
  scanned: readonly ScannedDirectory[];
  /** Agents folders in increasing precedence with the agents each yielded. */
  scannedAgents?: readonly ScannedAgentDirectory[];
  /** Skill names the application enables by default (`LoadRegistryOptions.defaults`): they outrank skills that are off
   * when two declare the same tool. */
  defaults?: readonly string[];
  /** Tools the application provides itself (see `LoadRegistryOptions.builtinTools`). */
  builtinTools?: readonly string[];
  /** Diagnostics gathered while scanning (parser messages, unreadable folders). */
  scanMessages?: readonly VFileMessage[];
  triggers?: TriggerOptions;
  /** Workspaces left out for want of trust. */
  untrusted?: readonly WorkspaceDeclarations[];
}

/** Case-insensitive first, so `Deploy` and `deploy-k8s` sit where a reader expects; code units break ties. */
export function compareSkillNames(a: string, b: string): number {
  return compareText(a.toLowerCase(), b.toLowerCase()) || compareText(a, b);
}

/** Applies layering and tool ownership to scanned folders, checks agents against the rest, and indexes the result. */
export function buildSnapshot(input: SnapshotInput): RegistrySnapshot {
  const layered = resolveLayers(input.scanned);
  // Refused tools are taken out before tool names are claimed, so a refused tool never blocks a good one.
  const checked = checkEntrypoints(layered.placed);
  const claimed = claimTools(checked.placed, input.defaults, input.builtinTools);
  const placed = [...claimed.placed].sort((a, b) => compareSkillNames(a.skill.name, b.skill.name));
  const agentLayers = resolveAgentLayers(input.scannedAgents ?? []);
  const agents = [...agentLayers.placed].sort((a, b) => compareSkillNames(a.agent.name, b.agent.name));
  const agentMessages = checkAgents({
    skills: placed.map((entry) => entry.skill),
    agents: agents.map((entry) => entry.agent),
    builtinTools: input.builtinTools ?? [],
  });
  return new Snapshot(
    input.version,
    placed.map((entry) => ({ skill: deepFreeze(entry.skill), directory: entry.directory })),
    agents.map((entry) => ({ agent: deepFreeze(entry.agent), directory: entry.directory })),
    [
      ...(input.scanMessages ?? []),
      ...layered.messages,
      ...checked.messages,
      ...claimed.messages,
      ...agentLayers.messages,
      ...agentMessages,
    ],
    input.triggers,
    deepFreeze(structuredClone([...(input.untrusted ?? [])])),
  );
}

/**
 * Builds a snapshot from skills (and agents) already in hand (tests, embedders), as if each kind came from one folder.
 * They are copied (the snapshot freezes what it holds), so the caller's objects stay as they were.
 */
export function snapshotFromSkills(
  skills: readonly Skill[],
  options: {
    version?: number;
    directory?: SkillDirectory;
    triggers?: TriggerOptions;
    agents?: readonly AgentDefinition[];
    builtinTools?: readonly string[];
  } = {},
): RegistrySnapshot {
  const directory = options.directory ?? { path: '', layer: 'explicit' };
  return buildSnapshot({
    version: options.version ?? 1,
    scanned: [{ directory, skills: structuredClone([...skills]) }],
    scannedAgents: [{ directory, agents: structuredClone([...(options.agents ?? [])]) }],
    ...(options.builtinTools ? { builtinTools: options.builtinTools } : {}),
    ...(options.triggers ? { triggers: options.triggers } : {}),
  });
}

class Snapshot implements RegistrySnapshot {
  readonly skills: readonly Skill[];
  readonly agents: readonly AgentDefinition[];
  readonly messages: readonly VFileMessage[];
  private readonly skillIndex: NameIndex;
  private readonly directories: readonly SkillDirectory[];
  private readonly agentIndex: NameIndex;
  private readonly agentDirectories: readonly SkillDirectory[];
  private readonly tools = new Map<string, TaggedToolEntry>();
  private readonly tags = new Map<string, ToolEntry[]>();
  private readonly servers: McpServerEntry[] = [];
  private readonly matcher: TriggerMatcher;

  constructor(
    readonly version: number,
    placed: ReadonlyArray<{ skill: Skill; directory: SkillDirectory }>,
    placedAgents: ReadonlyArray<{ agent: AgentDefinition; directory: SkillDirectory }>,
    messages: VFileMessage[],
    triggers: TriggerOptions | undefined,
    readonly untrusted: readonly WorkspaceDeclarations[],
  ) {
    this.skills = Object.freeze(placed.map((entry) => entry.skill));
    this.directories = placed.map((entry) => Object.freeze({ ...entry.directory }));
    this.agents = Object.freeze(placedAgents.map((entry) => entry.agent));
    this.agentDirectories = placedAgents.map((entry) => Object.freeze({ ...entry.directory }));
    this.agentIndex = new NameIndex(this.agents.map((agent) => agent.name));
    this.messages = Object.freeze(messages);
    this.skillIndex = new NameIndex(this.skills.map((skill) => skill.name));
    this.skills.forEach((skill) => {
      if (skill.mcpServer) this.servers.push(Object.freeze({ skill, server: skill.mcpServer }));
      const tags = Object.freeze([...new Set([...skill.tags, ...skill.toolTags])]) as string[];
      for (const tool of skill.tools) {
        this.tools.set(tool.name, Object.freeze({ skill, tool, tags }));
        const entry = Object.freeze({ skill, tool });
        for (const tag of new Set(tags.map((t) => t.toLowerCase()))) {
          const list = this.tags.get(tag);
          if (list) list.push(entry);
          else this.tags.set(tag, [entry]);
        }
      }
    });
    this.matcher = new TriggerMatcher(this.skills, triggers);
    Object.freeze(this);
  }

  getSkill(name: string): Skill | undefined {
    const index = this.indexOf(name);
    return index === undefined ? undefined : this.skills[index];
  }

  suggest(name: string, limit = 3): string[] {
    return suggestNames(
      name,
      this.skills.map((skill) => skill.name),
      limit,
    );
  }

  getTool(name: string): TaggedToolEntry | undefined {
    return this.tools.get(name);
  }

  toolsByTag(tag: string): ToolEntry[] {
    return [...(this.tags.get(tag.toLowerCase()) ?? [])];
  }

  mcpServers(): McpServerEntry[] {
    return [...this.servers];
  }

  layerOf(skillName: string): SkillDirectory | undefined {
    const index = this.indexOf(skillName);
    return index === undefined ? undefined : this.directories[index];
  }

  getAgent(name: string): AgentDefinition | undefined {
    const index = this.agentIndex.find(name);
    return index === undefined ? undefined : this.agents[index];
  }

  agentLayerOf(agentName: string): SkillDirectory | undefined {
    const index = this.agentIndex.find(agentName);
    return index === undefined ? undefined : this.agentDirectories[index];
  }

  matchTriggers(message: string, allowedSkillNames: Iterable<string>): Skill[] {
    const allowed = new Uint8Array(this.skills.length);
    for (const name of allowedSkillNames) {
      const index = this.indexOf(name);
      if (index !== undefined) allowed[index] = 1;
    }
    return this.matcher.match(message, allowed).map((index) => this.skills[index]!);
  }

  private indexOf(name: string): number | undefined {
    return this.skillIndex.find(name);
  }
}

/** Positions by exact name, then by lower-cased name (layering keeps names unique regardless of case). */
class NameIndex {
  private readonly exact = new Map<string, number>();
  private readonly folded = new Map<string, number>();

  constructor(names: readonly string[]) {
    names.forEach((name, index) => {
      this.exact.set(name, index);
      this.folded.set(name.toLowerCase(), index);
    });
  }

  find(name: string): number | undefined {
    return this.exact.get(name) ?? this.folded.get(name.toLowerCase());
  }
}
