import type { AgentDefinition, McpServerConfig, Skill, SkillCache, SkillTool } from '@birdie/skill-parser';
import type { VFileMessage } from 'vfile-message';

/** Where a skills (or agents) folder sits in the precedence order; later layers win. */
export type SkillLayer = 'bundled' | 'user' | 'project' | 'explicit';

export interface SkillDirectory {
  path: string;
  layer: SkillLayer;
  /**
   * For `'project'` folders: the workspace they belong to (its real path), the unit the user trusts. Default: the
   * folder two levels up (`<workspace>/.birdie/skills`).
   */
  workspace?: string;
  /**
   * The user named this folder (`--skills-dir`, a config entry): when it does not exist that is a mistake worth a
   * `dir-not-found` warning, where a default folder that does not exist is normal and passes in silence.
   */
  named?: boolean;
}

/** What one project skill declares that can run or reach the prompt. */
export interface DeclaredSkill {
  name: string;
  file: string;
  tools: Array<{ name: string; entrypoint: string }>;
  mcp?: { command: string; args: string[]; env?: Record<string, string>; cwd?: string } | { url: string };
  alwaysInject: boolean;
  enabledByDefault: boolean;
  /** The real path of the skill folder (a symlinked folder retargeted is another skill). */
  folder: string;
  /** The files its tools run (`node:`/`python:` modules, scripts its `bash:` templates name), hashed. */
  runs: RunFile[];
}

/** A file a skill runs, by its path inside the skill folder and the SHA-256 of its bytes. */
export interface RunFile {
  file: string;
  sha256: string;
}

/** A project memory file (`AGENTS.md`) as the trust question shows it. */
export interface MemoryFileInfo {
  path: string;
  size: number;
  /** Its first non-empty lines (at most 3, each cut at 100 characters). */
  head: string[];
}

/**
 * What one project agent declares that decides what it may do: the model it picks, the skills and tools it asks for,
 * the tools it pre-approves, the agents it may call. Absent lists are not set in the file.
 */
export interface DeclaredAgent {
  name: string;
  file: string;
  model?: string;
  skills?: string[];
  tools?: string[];
  approve?: string[];
  subagents?: string[];
  handoffs?: string[];
}

/** A workspace's project skills and agents as the user is asked to trust them. */
export interface WorkspaceDeclarations {
  /** The workspace folder. */
  path: string;
  /** Its project skills and agents folders that hold skills or agents. */
  folders: string[];
  /** SHA-256 of everything listed here (see `workspaceDigest` and the README's "Trust"). */
  digest: string;
  skills: DeclaredSkill[];
  agents: DeclaredAgent[];
  /** Its memory files (`AGENTS.md`, from the repository root down to the workspace) that exist. */
  memoryFiles: MemoryFileInfo[];
  /** Its settings and rules file (`.birdie/settings.json`), if it has one. */
  settings?: { path: string; sha256: string };
  /** Its custom slash commands (`.birdie/commands/*.md`), each with the SHA-256 of its bytes. */
  commands?: Array<{ path: string; sha256: string }>;
}

/** Whether the user trusts a workspace with exactly these declarations (e.g. a stored answer with this digest). */
/**
 * Whether the user trusts a workspace with exactly these declarations. It may answer asynchronously (a store read):
 * the answer is awaited, and only `true` trusts; anything else (false, undefined, a record) does not.
 */
export type TrustDecision = (workspace: WorkspaceDeclarations) => boolean | Promise<boolean>;

/** A tool together with the skill that owns it. */
export interface ToolEntry {
  skill: Skill;
  tool: SkillTool;
}

/** `ToolEntry` plus the tags the tool carries (`tags` ∪ `toolTags` of its skill). */
export interface TaggedToolEntry extends ToolEntry {
  tags: string[];
}

export interface McpServerEntry {
  skill: Skill;
  server: McpServerConfig;
}

/** How short triggers are matched; see the README ("Trigger rule"). */
export interface TriggerOptions {
  /** `'short'` (default): whole-word for triggers of `shortLength` characters or fewer; `'always'`; `'never'`. */
  wholeWord?: 'short' | 'always' | 'never';
  /** Default 3. */
  shortLength?: number;
}

/**
 * One immutable view of the loaded skills and agents. A turn takes one with `registry.current()` and keeps it to the end,
 * whatever reloads happen meanwhile.
 */
export interface RegistrySnapshot {
  /** Sorted by name (case-insensitively, then by code unit), frozen. */
  readonly skills: readonly Skill[];
  /** The agents of every agents folder, one per name (the later layer wins), sorted like `skills`, frozen. */
  readonly agents: readonly AgentDefinition[];
  readonly messages: readonly VFileMessage[];
  /**
   * Workspaces whose project skills and agents were left out because they are not trusted (with what they declare).
   * None of their skills is in `skills` and none of their agents in `agents`: nothing of theirs runs, starts a process
   * or enters the prompt.
   */
  readonly untrusted: readonly WorkspaceDeclarations[];
  /** 1 for the first load, +1 for each reload. */
  readonly version: number;
  /** Exact name first, then case-insensitive. */
  getSkill(name: string): Skill | undefined;
  /** Closest skill names by edit distance, best first ("did you mean"). Default limit 3. */
  suggest(name: string, limit?: number): string[];
  getTool(name: string): TaggedToolEntry | undefined;
  /** Case-insensitive tag; tools in skill order, then declaration order. */
  toolsByTag(tag: string): ToolEntry[];
  mcpServers(): McpServerEntry[];
  /** The folder the (winning) skill of that name was loaded from. */
  layerOf(skillName: string): SkillDirectory | undefined;
  /** Exact name first, then case-insensitive. */
  getAgent(name: string): AgentDefinition | undefined;
  /** The agents folder the (winning) agent of that name was loaded from. */
  agentLayerOf(agentName: string): SkillDirectory | undefined;
  /**
   * Skills whose triggers occur in `message`, limited to `allowedSkillNames`, in snapshot order. Only skills with
   * prose to inject count: a non-empty body and not `alwaysInject` (those are in the prompt already).
   */
  matchTriggers(message: string, allowedSkillNames: Iterable<string>): Skill[];
}

export interface WatchOptions {
  /** Quiet time after the last file event before reloading. Default 150 ms. */
  debounceMs?: number;
  onReload?: (messages: VFileMessage[]) => void;
  onError?: (error: Error) => void;
}

export interface RegistryWatcher {
  close(): void;
}

export interface Registry {
  /** The snapshot in force now. */
  current(): RegistrySnapshot;
  /** Rescans every folder and swaps the new snapshot in atomically; returns its diagnostics. */
  reload(): Promise<VFileMessage[]>;
  watch(options?: WatchOptions): RegistryWatcher;
  /** Diagnostics of the last load. */
  readonly messages: readonly VFileMessage[];
  /** The folders, deduplicated, in increasing precedence. (Optional so test fakes need not provide it.) */
  readonly directories?: readonly SkillDirectory[];
  /** The agents folders, likewise. */
  readonly agentDirectories?: readonly SkillDirectory[];
  /** The application-level default skill names given to `loadRegistry`; `SkillPolicy` uses them. */
  readonly defaults?: readonly string[];
}

/** What `loadRegistry` returns: a `Registry` whose folders and defaults are always known. */
export interface LoadedRegistry extends Registry {
  readonly directories: readonly SkillDirectory[];
  readonly agentDirectories: readonly SkillDirectory[];
  readonly defaults: readonly string[];
}

export interface LoadRegistryOptions {
  /** Skills folders, in increasing precedence. A bare string is an `'explicit'` folder. */
  dirs: Array<SkillDirectory | string>;
  /** Agents folders (`NAME.md` files), in increasing precedence, layered and trusted like `dirs`. Default: none. */
  agentDirs?: Array<SkillDirectory | string>;
  /**
   * Tools the application provides itself (the graph's `load_skill`, `task`, …): an agent's `tools` or `approve`
   * naming one is not reported as unknown.
   */
  builtinTools?: readonly string[];
  /** Skill names enabled by default in addition to those with `enabled_by_default: true`. */
  defaults?: string[];
  triggers?: TriggerOptions;
  /**
   * Decides, at every load and reload, whether a workspace's project skills and agents load. Default: never — project
   * folders are someone else's until the user trusts them. Bundled, user and explicit folders always load.
   */
  trust?: TrustDecision;
  /**
   * The memory files' names (the application's `memory_files` setting), looked for in each project folder from the
   * repository root down: the trust digest covers which of them exist. Default `['AGENTS.md']`.
   */
  memoryFiles?: readonly string[];
  /**
   * Parsed skills and agents kept between runs (see `SkillCache` in @birdie/skill-parser), used for the folders the
   * user chose (bundled, user, explicit); a project folder's files are always parsed afresh. Default: none.
   */
  skillCache?: SkillCache;
}
