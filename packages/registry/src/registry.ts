import type { SkillCache } from '@birdie/skill-parser';
import type { VFileMessage } from 'vfile-message';
import { normalizeDirectories } from './directories.js';
import { RegistryError } from './errors.js';
import { scanAgentDirectory, scanDirectory } from './scan.js';
import { buildSnapshot } from './snapshot.js';
import { applyTrust } from './trust.js';
import type {
  LoadedRegistry,
  LoadRegistryOptions,
  RegistrySnapshot,
  RegistryWatcher,
  SkillDirectory,
  TriggerOptions,
  TrustDecision,
  WatchOptions,
} from './types.js';
import { watchDirectories } from './watch.js';
import { DEFAULT_MEMORY_FILE_NAMES } from './workspace-files.js';

/** Scans every folder once and returns a registry holding the first snapshot. */
export async function loadRegistry(options: LoadRegistryOptions): Promise<LoadedRegistry> {
  const registry = new SkillRegistry(
    normalizeDirectories(options.dirs),
    normalizeDirectories(options.agentDirs ?? []),
    Object.freeze([...(options.defaults ?? [])]),
    {
      triggers: options.triggers,
      trust: options.trust ?? (() => false),
      builtinTools: Object.freeze([...(options.builtinTools ?? [])]),
      memoryFileNames: Object.freeze([...(options.memoryFiles ?? DEFAULT_MEMORY_FILE_NAMES)]),
      skillCache: options.skillCache,
    },
  );
  await registry.reload();
  return registry;
}

class SkillRegistry implements LoadedRegistry {
  private snapshot: RegistrySnapshot | undefined;
  private lastVersion = 0;
  private running: Promise<VFileMessage[]> | undefined;
  private queued: Promise<VFileMessage[]> | undefined;

  constructor(
    readonly directories: readonly SkillDirectory[],
    readonly agentDirectories: readonly SkillDirectory[],
    readonly defaults: readonly string[],
    private readonly settings: {
      triggers: TriggerOptions | undefined;
      trust: TrustDecision;
      builtinTools: readonly string[];
      memoryFileNames: readonly string[];
      skillCache: SkillCache | undefined;
    },
  ) {
    Object.freeze(directories);
    Object.freeze(agentDirectories);
  }

  current(): RegistrySnapshot {
    if (!this.snapshot) throw new RegistryError('reload-failed', 'The registry has not finished loading');
    return this.snapshot;
  }

  get messages(): readonly VFileMessage[] {
    return this.snapshot?.messages ?? [];
  }

  /**
   * One scan at a time. A call while a scan runs waits for it and then scans again (changes may have landed after
   * that scan read them); any number of such calls share that one extra scan.
   */
  reload(): Promise<VFileMessage[]> {
    if (!this.running) {
      this.running = this.scan().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.reload();
      });
    return this.queued;
  }

  watch(options: WatchOptions = {}): RegistryWatcher {
    return watchDirectories(this, options);
  }

  private async scan(): Promise<VFileMessage[]> {
    try {
      const { triggers, trust, builtinTools, memoryFileNames, skillCache } = this.settings;
      const [results, agentResults] = await Promise.all([
        Promise.all(this.directories.map((directory) => scanDirectory(directory, skillCache))),
        Promise.all(this.agentDirectories.map((directory) => scanAgentDirectory(directory, skillCache))),
      ]);
      // Trust is decided on what was just read, at every load: a trusted workspace whose declarations changed is
      // untrusted again until the user says otherwise.
      const { trusted, trustedAgents, untrusted, messages } = await applyTrust(
        results.map((result, index) => ({ directory: this.directories[index]!, skills: result.skills })),
        agentResults.map((result, index) => ({
          directory: this.agentDirectories[index]!,
          agents: result.agents,
        })),
        trust,
        memoryFileNames,
      );
      const next = buildSnapshot({
        version: this.lastVersion + 1,
        scanned: trusted,
        scannedAgents: trustedAgents,
        defaults: this.defaults,
        builtinTools,
        untrusted,
        scanMessages: [...[...results, ...agentResults].flatMap((result) => result.messages), ...messages],
        ...(triggers ? { triggers } : {}),
      });
      // The swap: one assignment, so a reader sees the old snapshot or the new one, never a mix.
      this.lastVersion = next.version;
      this.snapshot = next;
      return [...next.messages];
    } catch (error) {
      throw new RegistryError(
        'reload-failed',
        'Reloading the skills and agents failed; the previous snapshot stays in force',
        {
          cause: error,
        },
      );
    }
  }
}
