import type { Skill } from '@birdie/skill-parser';
import { RegistryError } from './errors.js';
import type { Registry, RegistrySnapshot, ToolEntry } from './types.js';

/** What a key (a session) changed from the defaults. Names are kept as given, even of skills that no longer exist. */
export interface SessionGrants {
  enabled: string[];
  disabled: string[];
}

/** Plain, serialisable: what the store persists. */
export type PolicyState = Record<string, SessionGrants>;

export interface SkillPolicyOptions {
  /** Skill names allowed by default besides those with `enabledByDefault`. Default: the registry's `defaults`. */
  defaults?: string[];
  /** Grants to start from (e.g. read back from the store). */
  state?: PolicyState;
}

interface Computed {
  skills: readonly Skill[];
  tools: readonly ToolEntry[];
  toolNames: ReadonlySet<string>;
}

interface KeyState {
  enabled: string[];
  disabled: string[];
  /** Bumped on every change, so cached results know they are stale. */
  revision: number;
}

// Keys and names end up as map keys and in the store; refuse what could only be a mistake or an attack.
const CONTROL = /[\u0000-\u001f\u007f]/;

function checkKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > 256 || CONTROL.test(key)) {
    throw new RegistryError('ERR_INVALID_POLICY_KEY', `Invalid policy key ${JSON.stringify(key)}`);
  }
}

function checkName(name: string): void {
  if (typeof name !== 'string' || name.trim() === '' || name.length > 256 || CONTROL.test(name)) {
    throw new RegistryError('ERR_INVALID_SKILL_NAME', `Invalid skill name ${JSON.stringify(name)}`);
  }
}

const fold = (name: string) => name.toLowerCase();

/**
 * Which skills a key (the CLI uses the session id) may use: explicit disable > explicit enable > default, where
 * default is the skill's `enabledByDefault` or its name being in the application's default list. Names are
 * compared case-insensitively, as skill names are unique that way.
 */
export class SkillPolicy {
  private readonly snapshotOf: () => RegistrySnapshot;
  private readonly defaults: ReadonlySet<string>;
  private readonly keys = new Map<string, KeyState>();
  private readonly cache = new WeakMap<
    RegistrySnapshot,
    Map<string, { revision: number; computed: Computed }>
  >();

  constructor(source: Registry | (() => RegistrySnapshot), options: SkillPolicyOptions = {}) {
    this.snapshotOf = typeof source === 'function' ? source : () => source.current();
    const defaults = options.defaults ?? (typeof source === 'function' ? [] : (source.defaults ?? []));
    this.defaults = new Set(defaults.map(fold));
    for (const [key, grants] of Object.entries(options.state ?? {})) this.setGrants(key, grants);
  }

  enable(key: string, skill: string): void {
    checkName(skill);
    this.update(key, (state) => {
      state.disabled = without(state.disabled, skill);
      if (!state.enabled.some((name) => fold(name) === fold(skill))) state.enabled.push(skill);
    });
  }

  disable(key: string, skill: string): void {
    checkName(skill);
    this.update(key, (state) => {
      state.enabled = without(state.enabled, skill);
      if (!state.disabled.some((name) => fold(name) === fold(skill))) state.disabled.push(skill);
    });
  }

  /** Back to the default for one skill, or for every skill of the key. */
  reset(key: string, skill?: string): void {
    if (skill === undefined) {
      checkKey(key);
      const state = this.keys.get(key);
      if (state) this.keys.set(key, { enabled: [], disabled: [], revision: state.revision + 1 });
      return;
    }
    this.update(key, (state) => {
      state.enabled = without(state.enabled, skill);
      state.disabled = without(state.disabled, skill);
    });
  }

  grants(key: string): SessionGrants {
    checkKey(key);
    const state = this.keys.get(key);
    return { enabled: [...(state?.enabled ?? [])], disabled: [...(state?.disabled ?? [])] };
  }

  /** Replaces a key's grants as they are (both lists may name the same skill: disable wins). */
  setGrants(key: string, grants: SessionGrants): void {
    const enabled = dedupe(grants.enabled ?? []);
    const disabled = dedupe(grants.disabled ?? []);
    for (const name of [...enabled, ...disabled]) checkName(name);
    this.update(key, (state) => {
      state.enabled = enabled;
      state.disabled = disabled;
    });
  }

  allowedSkills(key: string, snapshot?: RegistrySnapshot): Skill[] {
    return [...this.compute(key, snapshot).skills];
  }

  allowedTools(key: string, snapshot?: RegistrySnapshot): ToolEntry[] {
    return [...this.compute(key, snapshot).tools];
  }

  isToolAllowed(key: string, toolName: string, snapshot?: RegistrySnapshot): boolean {
    return this.compute(key, snapshot).toolNames.has(toolName);
  }

  /** Every key with grants; keys whose grants are both empty are left out. */
  toJSON(): PolicyState {
    const state: PolicyState = {};
    for (const [key, { enabled, disabled }] of this.keys) {
      if (enabled.length > 0 || disabled.length > 0)
        state[key] = { enabled: [...enabled], disabled: [...disabled] };
    }
    return state;
  }

  private update(key: string, change: (state: KeyState) => void): void {
    checkKey(key);
    const state = this.keys.get(key) ?? { enabled: [], disabled: [], revision: 0 };
    change(state);
    state.revision++;
    this.keys.set(key, state);
  }

  /** Cached per (snapshot, key, grants revision): a turn asks many times and the answer rarely changes. */
  private compute(key: string, snapshot = this.snapshotOf()): Computed {
    checkKey(key);
    const revision = this.keys.get(key)?.revision ?? 0;
    let perKey = this.cache.get(snapshot);
    if (!perKey) {
      perKey = new Map();
      this.cache.set(snapshot, perKey);
    }
    const hit = perKey.get(key);
    if (hit && hit.revision === revision) return hit.computed;
    const computed = this.evaluate(key, snapshot);
    perKey.set(key, { revision, computed });
    return computed;
  }

  private evaluate(key: string, snapshot: RegistrySnapshot): Computed {
    const state = this.keys.get(key);
    const enabled = new Set(state?.enabled.map(fold));
    const disabled = new Set(state?.disabled.map(fold));
    const skills = snapshot.skills.filter((skill) => {
      const name = fold(skill.name);
      if (disabled.has(name)) return false;
      if (enabled.has(name)) return true;
      return skill.enabledByDefault || this.defaults.has(name);
    });
    const tools = skills.flatMap((skill) => skill.tools.map((tool) => Object.freeze({ skill, tool })));
    return {
      skills: Object.freeze(skills),
      tools: Object.freeze(tools),
      toolNames: new Set(tools.map((entry) => entry.tool.name)),
    };
  }
}

function without(names: string[], name: string): string[] {
  return names.filter((entry) => fold(entry) !== fold(name));
}

function dedupe(names: string[]): string[] {
  const seen = new Set<string>();
  return names.filter((name) => !seen.has(fold(name)) && seen.add(fold(name)));
}
