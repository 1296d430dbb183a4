import type { McpServerConfig, Skill, SkillTool } from '@birdie/skill-parser';
import type { VFileMessage } from 'vfile-message';

/** Where a skills folder sits in the precedence order; later layers win. */
export type SkillLayer = 'bundled' | 'user' | 'project' | 'explicit';

export interface SkillDirectory {
  path: string;
  layer: SkillLayer;
}

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
 * One immutable view of the loaded skills. A turn takes one with `registry.current()` and keeps it to the end,
 * whatever reloads happen meanwhile.
 */
export interface RegistrySnapshot {
  /** Sorted by name (case-insensitively, then by code unit), frozen. */
  readonly skills: readonly Skill[];
  readonly messages: readonly VFileMessage[];
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
  /** The application-level default skill names given to `loadRegistry`; `SkillPolicy` uses them. */
  readonly defaults?: readonly string[];
}

/** What `loadRegistry` returns: a `Registry` whose folders and defaults are always known. */
export interface LoadedRegistry extends Registry {
  readonly directories: readonly SkillDirectory[];
  readonly defaults: readonly string[];
}

export interface LoadRegistryOptions {
  /** In increasing precedence. A bare string is an `'explicit'` folder. */
  dirs: Array<SkillDirectory | string>;
  /** Skill names enabled by default in addition to those with `enabled_by_default: true`. */
  defaults?: string[];
  triggers?: TriggerOptions;
}
