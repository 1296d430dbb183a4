import { type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { FIND_TOOLS } from './builtin-names.js';
import type { DeclaredTool } from './tool.js';
import type { ToolSelectionEvent } from './types.js';

/** When a turn's tools exceed either bound, only some are bound and `find_tools` searches the rest. */
export interface ToolBudget {
  maxTools: number;
  /** Characters of the bound tools' definitions (name, description, JSON Schema) as JSON. */
  maxChars: number;
}

export const DEFAULT_TOOL_BUDGET: ToolBudget = { maxTools: 40, maxChars: 12_000 };

/** How far back a tool that ran counts as used recently (messages). */
const RECENT_MESSAGES = 40;

/** The tools a turn may use, as `ToolsetBuilder.build` gives them (first of a name wins). */
export interface ToolList {
  tools: DeclaredTool[];
  byName: Map<string, DeclaredTool>;
}

/** Why a tool is bound: always (builtins, the agent's, pinned), found by `find_tools`, or used recently. */
export type BoundBecause = 'always' | 'found' | 'recent';

/** Which bound of the budget left a wanted tool out: the number of tools, or the characters of definitions. */
export type OverBudget = 'tools' | 'chars';

export interface ToolSelection {
  /** The tools bound to the model this call, in the toolset's order, `find_tools` last when the set is limited. */
  tools: DeclaredTool[];
  byName: Map<string, DeclaredTool>;
  /** The tools were more than the budget: some are held back and `find_tools` is bound. */
  limited: boolean;
  /** Why each bound tool is there (limited sets only; `find_tools` is absent from it). */
  because: Map<string, BoundBecause>;
  /** The allowed tools not bound. */
  held: DeclaredTool[];
  /** What `find_tools` searches: every allowed tool but the builtins (a bound one may be found again). */
  searchable: DeclaredTool[];
  /** Found or recently used tools the budget had no room for, and which of its bounds was full (limited sets). */
  left: Map<string, OverBudget>;
  /** The budget the selection was made under (false: none). */
  budget: ToolBudget | false;
  /**
   * The selection the next step makes if `find_tools` adds these names (in `foundTools` order: best last), the
   * thread otherwise unchanged: what a find may promise the model is what this binds.
   */
  afterFinding(names: readonly string[]): ToolSelection;
}

export interface SelectionInput {
  budget: ToolBudget | false;
  /**
   * Names `find_tools` added in this thread, in rising priority (state `foundTools`): a newer find after an older
   * one, and within one find the best-ranked result last. The last ones are bound first.
   */
  found: readonly string[];
  /** The thread's messages: tools that ran in the last ones stay bound. */
  messages: readonly BaseMessage[];
  /** Names always bound: the session's pinned tools, the agent file's `tools`. */
  pinned: ReadonlySet<string>;
  /** Skills whose tools are always bound (the agent file's `skills`, skills with `always_inject`). */
  pinnedSkills: ReadonlySet<string>;
  /** The `find_tools` builtin to bind when the set is limited. */
  findTools: DeclaredTool;
}

/**
 * `foundTools` after a find added `names` (best-ranked last): a name found again moves up to its new place. The
 * state's reducer, and what the selection of the next step assumes.
 */
export function addFound(current: readonly string[], names: readonly string[]): string[] {
  const again = new Set(names);
  return [...current.filter((name) => !again.has(name)), ...again];
}

/** The names bound because `find_tools` returned them. */
export function foundBy(selection: ToolSelection): Set<string> {
  return new Set([...selection.because].flatMap(([name, why]) => (why === 'found' ? [name] : [])));
}

/** The `tool-selection` event of a limited set: what is bound, what of it was found, how many are held back. */
export function selectionEvent(selection: ToolSelection): ToolSelectionEvent {
  return {
    type: 'tool-selection',
    bound: selection.tools.map((t) => t.name),
    found: [...foundBy(selection)],
    held: selection.held.length,
  };
}

const sizes = new WeakMap<DeclaredTool, number>();

/** Characters of a tool's definition as sent (JSON), cached per tool object. */
export function definitionChars(tool: DeclaredTool): number {
  let size = sizes.get(tool);
  if (size === undefined) {
    size = JSON.stringify(tool.definition).length;
    sizes.set(tool, size);
  }
  return size;
}

/** Tools whose call succeeded in the last `RECENT_MESSAGES` messages, newest first. */
export function recentlyUsed(messages: readonly BaseMessage[]): string[] {
  const names: string[] = [];
  const seen = new Set<string>();
  for (let i = messages.length - 1; i >= 0 && i >= messages.length - RECENT_MESSAGES; i -= 1) {
    const m = messages[i];
    // A refused or failed call does not count: a tool the model merely named must not become bound by it.
    if (!m || !ToolMessage.isInstance(m) || m.status === 'error' || !m.name || seen.has(m.name)) continue;
    seen.add(m.name);
    names.push(m.name);
  }
  return names;
}

/**
 * The tools of one model call. Under the budget: all of them, as built. Over it: the always-needed ones, then the
 * ones `find_tools` found (newest find first, best-ranked first within it) and the ones used recently, while the
 * budget holds, then `find_tools`.
 * A pure function of the toolset and the thread's state, so the tools node recomputes the same set the model saw.
 */
export function selectTools(toolset: ToolList, input: SelectionInput): ToolSelection {
  const budget = input.budget;
  const over =
    budget !== false &&
    (toolset.tools.length > budget.maxTools ||
      toolset.tools.reduce((n, t) => n + definitionChars(t), 0) > budget.maxChars);
  const afterFinding = (names: readonly string[]) =>
    selectTools(toolset, { ...input, found: addFound(input.found, names) });
  if (!over)
    return {
      tools: toolset.tools,
      byName: toolset.byName,
      limited: false,
      because: new Map(),
      held: [],
      searchable: [],
      left: new Map(),
      budget,
      afterFinding,
    };
  // The builtin is bound under its name; a skill tool of the same name is held back (and never found).
  const all = toolset.tools.filter((t) => t.name !== FIND_TOOLS);

  const because = new Map<string, BoundBecause>();
  const tools: DeclaredTool[] = [];
  let chars = definitionChars(input.findTools);
  const bind = (tool: DeclaredTool, why: BoundBecause) => {
    because.set(tool.name, why);
    tools.push(tool);
    chars += definitionChars(tool);
  };
  for (const tool of all) {
    const always =
      tool.kind === 'builtin' ||
      input.pinned.has(tool.name) ||
      (tool.skill !== undefined && input.pinnedSkills.has(tool.skill));
    if (always) bind(tool, 'always');
  }
  const wanted: Array<[string, BoundBecause]> = [
    ...[...input.found].reverse().map((n): [string, BoundBecause] => [n, 'found']),
    ...recentlyUsed(input.messages).map((n): [string, BoundBecause] => [n, 'recent']),
  ];
  const left = new Map<string, OverBudget>();
  for (const [name, why] of wanted) {
    const tool = name === FIND_TOOLS ? undefined : toolset.byName.get(name);
    if (!tool || because.has(name) || left.has(name)) continue;
    // Room for this one and for find_tools; a smaller one further down may still fit.
    if (tools.length + 2 > budget.maxTools) left.set(name, 'tools');
    else if (chars + definitionChars(tool) > budget.maxChars) left.set(name, 'chars');
    else bind(tool, why);
  }
  const held = all.filter((t) => !because.has(t.name));
  // Sent in the toolset's order whatever the priority that chose them, so a new find does not reorder the tools
  // before it (a vendor's prompt cache keeps the prefix).
  const bound = [...all.filter((t) => because.has(t.name)), input.findTools];
  return {
    tools: bound,
    byName: new Map(bound.map((t) => [t.name, t])),
    limited: true,
    because,
    held,
    searchable: all.filter((t) => t.kind !== 'builtin'),
    left,
    budget,
    afterFinding,
  };
}
