import type { Skill } from '@birdie/skill-parser';
import { RegistryError } from './errors.js';
import type { Registry, RegistrySnapshot, ToolEntry } from './types.js';

/** What a key (a session) changed from the defaults. Names are kept as given, even of skills that no longer exist. */
export interface SessionGrants {
  enabled: string[];
  disabled: string[];
  /**
   * The skill file each enabled name was granted to (`layer:path`, see `skillIdentity`). A grant holds only while
   * that file provides the name: when another file (a project skill shadowing a bundled one) provides it, the grant
   * does not carry over. A name without an entry (grants saved before sources existed) holds for any file.
   */
  sources?: Record<string, string>;
}

/** Where a policy keeps its grants (the CLI passes the store's, per session): read once per key, written on change. */
export interface GrantsStore {
  get(key: string): SessionGrants | undefined;
  set(key: string, grants: SessionGrants): void;
}

/** A grant that no longer applies because another skill file now provides the name. */
export interface StaleGrant {
  name: string;
  grantedTo: string;
  providedBy: string;
}

/** The identity a grant is bound to: the layer and the file of the skill that provides the name. */
export function skillIdentity(snapshot: RegistrySnapshot, name: string): string | undefined {
  const skill = snapshot.getSkill(name);
  const layer = snapshot.layerOf(name)?.layer;
  return skill && layer ? `${layer}:${skill.file}` : undefined;
}

/** Plain, serialisable: what the store persists. */
export type PolicyState = Record<string, SessionGrants>;

export interface SkillPolicyOptions {
  /** Skill names allowed by default besides those with `enabledByDefault`. Default: the registry's `defaults`. */
  defaults?: string[];
  /** Grants to start from (e.g. read back from the store). */
  state?: PolicyState;
  /** Where grants are read from (lazily, per key) and saved to on every change. */
  store?: GrantsStore;
  /**
   * The most any key may use (a server operator's policy over every API session): a skill or agent it refuses is
   * never allowed, whatever the grants and defaults say. Grants narrow within it; they cannot widen it.
   */
  ceiling?: PolicyCeiling;
}

/** What an application allows at most, decided per skill (on the snapshot asked about) and per agent name. */
export interface PolicyCeiling {
  skill?(skill: Skill, snapshot: RegistrySnapshot): boolean;
  agent?(name: string): boolean;
}

/** The cache slot of every key without grants. */
const DEFAULTS_SLOT = '';
/**
 * Results kept per snapshot, by distinct grants (not by key): sessions mostly share a few sets of grants (none, or
 * the `skills.enable` settings), and the least recently used beyond this are evaluated again when asked.
 */
const COMPUTED_MAX = 256;

interface Computed {
  skills: readonly Skill[];
  tools: readonly ToolEntry[];
  toolNames: ReadonlySet<string>;
}

interface KeyState {
  enabled: string[];
  disabled: string[];
  sources: Record<string, string>;
}

/**
 * The cache slot of a key's grants: the grants themselves, folded and sorted (what `evaluate` reads of them), so keys
 * with the same grants share one result. No grants at all is the slot of keys never given any.
 */
function slotOf(state: KeyState | undefined): string {
  if (!state) return DEFAULTS_SLOT;
  const enabled = state.enabled.map(fold).sort();
  const disabled = state.disabled.map(fold).sort();
  const sources = Object.entries(state.sources).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (enabled.length === 0 && disabled.length === 0 && sources.length === 0) return DEFAULTS_SLOT;
  return JSON.stringify([enabled, disabled, sources]);
}

// Keys and names end up as map keys and in the store; refuse what could only be a mistake or an attack.
const CONTROL = /[\u0000-\u001f\u007f]/;

function checkKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > 256 || CONTROL.test(key)) {
    throw new RegistryError('invalid-policy-key', `Invalid policy key ${JSON.stringify(key)}`);
  }
}

function checkName(name: string): void {
  if (typeof name !== 'string' || name.trim() === '' || name.length > 256 || CONTROL.test(name)) {
    throw new RegistryError('invalid-skill-name', `Invalid skill name ${JSON.stringify(name)}`);
  }
}

const fold = (name: string) => name.toLowerCase();

/**
 * The policy answers synchronously, so its callbacks must too: a Promise is truthy, and taking one as an answer would
 * lose a saved "disable" or an operator's ceiling without a word. Read asynchronous sources up front instead (pass
 * `state`, or a ceiling over values already read).
 */
function synchronous<T>(value: T, callback: string): T {
  if (isThenable(value)) {
    throw new RegistryError(
      'async-callback',
      `SkillPolicy's ${callback} returned a Promise; it must answer synchronously (read asynchronous sources up front, e.g. into \`state\`)`,
    );
  }
  return value;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Which skills a key (the CLI uses the session id) may use: explicit disable > explicit enable > default, where
 * default is the skill's `enabledByDefault` or its name being in the application's default list, all within the
 * application's ceiling (if any). Names are compared case-insensitively, as skill names are unique that way.
 */

export class SkillPolicy {
  private readonly snapshotOf: () => RegistrySnapshot;
  private readonly defaults: ReadonlySet<string>;
  /** Each key's grants with their cache slot. */
  private readonly keys = new Map<string, { state: KeyState; slot: string }>();
  private readonly store: GrantsStore | undefined;
  private readonly ceiling: PolicyCeiling;
  private readonly cache = new WeakMap<RegistrySnapshot, Map<string, Computed>>();

  constructor(source: Registry | (() => RegistrySnapshot), options: SkillPolicyOptions = {}) {
    this.snapshotOf = typeof source === 'function' ? source : () => source.current();
    const defaults = options.defaults ?? (typeof source === 'function' ? [] : (source.defaults ?? []));
    this.defaults = new Set(defaults.map(fold));
    this.store = options.store;
    this.ceiling = options.ceiling ?? {};
    for (const [key, grants] of Object.entries(options.state ?? {})) this.setGrants(key, grants);
  }

  /** Enables a skill for the key, bound to the file that provides the name now (and saved, with a store). */
  enable(key: string, skill: string): void {
    checkName(skill);
    const identity = skillIdentity(this.snapshotOf(), skill);
    this.update(
      key,
      (state) => {
        state.disabled = without(state.disabled, skill);
        if (!state.enabled.some((name) => fold(name) === fold(skill))) state.enabled.push(skill);
        state.sources = withoutKey(state.sources, skill);
        if (identity) state.sources[fold(skill)] = identity;
      },
      true,
    );
  }

  disable(key: string, skill: string): void {
    checkName(skill);
    this.update(
      key,
      (state) => {
        state.enabled = without(state.enabled, skill);
        state.sources = withoutKey(state.sources, skill);
        if (!state.disabled.some((name) => fold(name) === fold(skill))) state.disabled.push(skill);
      },
      true,
    );
  }

  /** Back to the default for one skill, or for every skill of the key. */
  reset(key: string, skill?: string): void {
    if (skill !== undefined) checkName(skill);
    this.update(
      key,
      (state) => {
        if (skill === undefined) {
          state.enabled = [];
          state.disabled = [];
          state.sources = {};
          return;
        }
        state.enabled = without(state.enabled, skill);
        state.disabled = without(state.disabled, skill);
        state.sources = withoutKey(state.sources, skill);
      },
      true,
    );
  }

  grants(key: string): SessionGrants {
    return grantsOf(this.stateOf(key));
  }

  /** Replaces a key's grants as they are (both lists may name the same skill: disable wins). Not saved. */
  setGrants(key: string, grants: SessionGrants): void {
    checkKey(key);
    this.keep(key, toState(grants));
  }

  /**
   * Drops the key's grants from memory (never from the store): a server that serves many sessions keeps only those
   * it is using. The next question about the key reads them from the store again (`store.get`); without a store the
   * key is back to the defaults.
   */
  forget(key: string): void {
    this.keys.delete(key);
  }

  /**
   * Enabled names whose grant was given to another file than the one that provides the name now: they are not
   * allowed (the default of the new skill applies), and an application should say so once.
   */
  staleGrants(key: string, snapshot = this.snapshotOf()): StaleGrant[] {
    const state = this.stateOf(key);
    if (!state) return [];
    return state.enabled.flatMap((name) => {
      const grantedTo = state.sources[fold(name)];
      const providedBy = skillIdentity(snapshot, name);
      return grantedTo && providedBy && grantedTo !== providedBy ? [{ name, grantedTo, providedBy }] : [];
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

  /** Whether the ceiling lets a skill be used at all (grants and defaults aside). */
  withinCeiling(skill: Skill, snapshot = this.snapshotOf()): boolean {
    return synchronous(this.ceiling.skill?.(skill, snapshot), 'ceiling.skill') ?? true;
  }

  /** Whether an agent may run (be started, delegated to, handed off to): the ceiling's answer, else yes. */
  isAgentAllowed(name: string): boolean {
    return synchronous(this.ceiling.agent?.(name), 'ceiling.agent') ?? true;
  }

  /** Every key with grants; keys whose grants are both empty are left out. */
  toJSON(): PolicyState {
    const state: PolicyState = {};
    for (const key of this.keys.keys()) {
      const grants = this.grants(key);
      if (grants.enabled.length > 0 || grants.disabled.length > 0) state[key] = grants;
    }
    return state;
  }

  /** The key's grants, read from the store the first time the key is used. */
  private stateOf(key: string): KeyState | undefined {
    return this.entryOf(key)?.state;
  }

  private entryOf(key: string): { state: KeyState; slot: string } | undefined {
    checkKey(key);
    if (!this.keys.has(key) && this.store) {
      const stored = synchronous(this.store.get(key), 'store.get');
      if (stored) this.keep(key, toState(stored));
    }
    return this.keys.get(key);
  }

  private keep(key: string, state: KeyState): void {
    this.keys.set(key, { state, slot: slotOf(state) });
  }

  /**
   * Changes a copy of the key's grants and keeps it only once the store took it: a store that refuses (throws, or
   * answers with a Promise, which may yet reject) leaves the policy as it was, so memory never grants what was not saved.
   */
  private update(key: string, change: (state: KeyState) => void, save = false): void {
    const current = this.stateOf(key);
    const state: KeyState = {
      enabled: [...(current?.enabled ?? [])],
      disabled: [...(current?.disabled ?? [])],
      sources: Object.assign(Object.create(null), current?.sources),
    };
    change(state);
    if (save && this.store) {
      const saved = this.store.set(key, grantsOf(state)) as unknown;
      // Refused just below; its rejection is that refusal's, not an unhandled one that would end the process.
      if (isThenable(saved)) saved.then(undefined, () => undefined);
      synchronous(saved, 'store.set');
    }
    this.keep(key, state);
  }

  /**
   * Cached per (snapshot, grants): a turn asks many times and the answer rarely changes. Keys with the same grants
   * (none, or the same `skills.enable` grants) share one entry, so a long-running server keeps one per distinct set of
   * grants it met lately, not one per session it ever served; a key whose grants change moves to another slot.
   */
  private compute(key: string, snapshot = this.snapshotOf()): Computed {
    const entry = this.entryOf(key);
    const slot = entry?.slot ?? DEFAULTS_SLOT;
    let perSlot = this.cache.get(snapshot);
    if (!perSlot) {
      perSlot = new Map();
      this.cache.set(snapshot, perSlot);
    }
    const hit = perSlot.get(slot);
    if (hit) {
      // Most recently used last: the first entry is the one to drop.
      perSlot.delete(slot);
      perSlot.set(slot, hit);
      return hit;
    }
    const computed = this.evaluate(entry?.state, snapshot);
    perSlot.set(slot, computed);
    if (perSlot.size > COMPUTED_MAX) perSlot.delete(perSlot.keys().next().value as string);
    return computed;
  }

  private evaluate(state: KeyState | undefined, snapshot: RegistrySnapshot): Computed {
    const enabled = new Set(state?.enabled.map(fold));
    const disabled = new Set(state?.disabled.map(fold));
    const skills = snapshot.skills.filter((skill) => {
      const name = fold(skill.name);
      if (disabled.has(name) || !this.withinCeiling(skill, snapshot)) return false;
      // A grant given to another file than the one providing the name now does not carry over.
      const source = state?.sources[name];
      if (enabled.has(name) && (!source || source === skillIdentity(snapshot, skill.name))) return true;
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

/** A key's grants as the store and callers get them (copies: the policy's own state stays its own). */
function grantsOf(state: KeyState | undefined): SessionGrants {
  return {
    enabled: [...(state?.enabled ?? [])],
    disabled: [...(state?.disabled ?? [])],
    ...(state && Object.keys(state.sources).length > 0 ? { sources: { ...state.sources } } : {}),
  };
}

function without(names: string[], name: string): string[] {
  return names.filter((entry) => fold(entry) !== fold(name));
}

/** Checked, deduplicated grants with sources keyed by folded name (null prototype: names are data). */
function toState(grants: SessionGrants): KeyState {
  const enabled = dedupe(grants.enabled ?? []);
  const disabled = dedupe(grants.disabled ?? []);
  for (const name of [...enabled, ...disabled]) checkName(name);
  const sources: Record<string, string> = Object.create(null);
  for (const [name, source] of Object.entries(grants.sources ?? {}))
    if (typeof source === 'string') sources[fold(name)] = source;
  return { enabled, disabled, sources };
}

function withoutKey(sources: Record<string, string>, name: string): Record<string, string> {
  const next: Record<string, string> = Object.create(null);
  for (const [key, value] of Object.entries(sources)) if (key !== fold(name)) next[key] = value;
  return next;
}

function dedupe(names: string[]): string[] {
  const seen = new Set<string>();
  return names.filter((name) => !seen.has(fold(name)) && seen.add(fold(name)));
}
