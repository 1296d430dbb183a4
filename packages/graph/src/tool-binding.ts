import type { BaseMessage } from '@langchain/core/messages';
import { createFindToolsTool, ToolFinder } from './find-tools.js';
import type { DeclaredTool, FindToolsSearch } from './tool.js';
import {
  DEFAULT_TOOL_BUDGET,
  selectTools,
  type ToolBudget,
  type ToolList,
  type ToolSelection,
} from './tool-selection.js';
import type { AgentRegistrySnapshot, AgentSpec } from './types.js';

/** What a step knows when it chooses its tools: the thread's state and the turn's pins. */
export interface BindingInput {
  snapshot: AgentRegistrySnapshot;
  spec: AgentSpec | undefined;
  /** The turn's `pinnedTools` (the session's pins). */
  pinned: readonly string[] | undefined;
  foundTools: readonly string[] | undefined;
  messages: readonly BaseMessage[];
}

/**
 * Which of a turn's tools are bound to the model: all of them under the budget, else the always-needed ones, the
 * found and recently used ones, and `find_tools` over the rest (see `selectTools`). One per agent: it keeps the
 * `find_tools` tool (one definition, so bindings are cached) and the full-text indexes (one per registry snapshot).
 */
export class ToolBinding {
  readonly #findTools: DeclaredTool = createFindToolsTool();
  readonly #finder = new ToolFinder();
  readonly #pinnedSkills = new WeakMap<AgentRegistrySnapshot, Set<string>>();

  constructor(readonly budget: ToolBudget | false = DEFAULT_TOOL_BUDGET) {}

  select(toolset: ToolList, input: BindingInput): ToolSelection {
    return selectTools(toolset, {
      budget: this.budget,
      found: input.foundTools ?? [],
      messages: input.messages,
      pinned: new Set([...(input.pinned ?? []), ...(input.spec?.tools ?? [])]),
      pinnedSkills: this.#alwaysInjected(input.snapshot),
      findTools: this.#findTools,
    });
  }

  /** `find_tools`' search for a step with this selection; undefined when nothing is held back. */
  searchFor(selection: ToolSelection, snapshot: AgentRegistrySnapshot): FindToolsSearch | undefined {
    return this.#finder.searchFor(selection, snapshot);
  }

  /** Skills that ask to be in every prompt (`always_inject`) keep their tools bound too. */
  #alwaysInjected(snapshot: AgentRegistrySnapshot): Set<string> {
    let names = this.#pinnedSkills.get(snapshot);
    if (!names) {
      names = new Set(snapshot.skills.filter((s) => s.alwaysInject).map((s) => s.name));
      this.#pinnedSkills.set(snapshot, names);
    }
    return names;
  }
}
