import { FIND_TOOLS } from './builtin-names.js';
import { builtinTool } from './progressive.js';
import type { DeclaredTool, FindToolsSearch, ToolBody } from './tool.js';
import { type ToolDocument, ToolIndex } from './tool-index.js';
import type { ToolSelection } from './tool-selection.js';
import type { AgentRegistrySnapshot } from './types.js';

export { FIND_TOOLS };

const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 10;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * `find_tools({query, limit?})`: searches the tools this session may use but that are not bound to the model (too
 * many to send at once) by name, description, skill and tags; the ones it returns are bound from the next step on
 * and stay bound in the thread (state `foundTools`). The definition never changes, so binding it is cached.
 */
export function createFindToolsTool(): DeclaredTool {
  const schema = {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        description:
          'What the tool should do, in a few words (e.g. "weather forecast", "open a pull request")',
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_RESULTS,
        default: DEFAULT_RESULTS,
        description: 'How many tools to return at most',
      },
    },
    required: ['query'],
    additionalProperties: false,
  };
  const description =
    'Find more tools. This session has more tools than you are given at once: search them by what they do. The tools it returns can be called from your next step on (and stay available). Search before saying a task cannot be done.';
  const execute: ToolBody['execute'] = async (args, context) => {
    if (!context.findTools) throw new Error('There are no more tools to search in this step.');
    const query = String(args.query).trim();
    if (query === '') throw new Error('Give a query: what the tool should do.');
    const limit = Math.min(MAX_RESULTS, Math.max(1, Number(args.limit ?? DEFAULT_RESULTS)));
    const hits = context.findTools(query, limit);
    if (hits.length === 0)
      return { content: `No tool matches "${clip(query, 100)}". Try other words, or fewer.` };
    const lines = hits.map(
      (h) => `- ${h.name}${h.skill ? ` (${h.skill})` : ''}: ${clip(h.description, 200)}`,
    );
    return {
      content: `Tools you can call from your next step:\n${lines.join('\n')}`,
      found: hits.map((h) => h.name),
    };
  };
  return builtinTool(FIND_TOOLS, description, schema, execute);
}

/** The text the index holds for a tool: its own, and its skill's tags. */
function documentOf(tool: DeclaredTool, snapshot: AgentRegistrySnapshot): ToolDocument {
  const skill = tool.skill === undefined ? undefined : snapshot.getSkill(tool.skill);
  return {
    name: tool.name,
    description: tool.description,
    ...(tool.skill !== undefined ? { skill: tool.skill } : {}),
    ...(skill ? { tags: [...skill.tags, ...skill.toolTags] } : {}),
  };
}

/**
 * One full-text index per registry snapshot (a reload makes a new snapshot, hence a new index), built the first
 * time `find_tools` searches; tools the index has not seen (an MCP server's) are added when they first show up.
 */
export class ToolFinder {
  readonly #indexes = new WeakMap<AgentRegistrySnapshot, ToolIndex>();

  /** The search for one step: among the tools the session's policy allows (the selection's searchable ones). */
  searchFor(selection: ToolSelection, snapshot: AgentRegistrySnapshot): FindToolsSearch | undefined {
    if (!selection.limited) return undefined;
    return (query, limit) => {
      const index = this.#index(snapshot, selection.searchable);
      const allowed = new Map(selection.searchable.map((t) => [t.name, t]));
      return index
        .search(query, (name) => allowed.has(name), limit)
        .map((hit) => {
          const tool = allowed.get(hit.name) as DeclaredTool;
          return {
            name: tool.name,
            ...(tool.skill ? { skill: tool.skill } : {}),
            description: tool.description,
          };
        });
    };
  }

  #index(snapshot: AgentRegistrySnapshot, tools: readonly DeclaredTool[]): ToolIndex {
    const index = this.#indexes.get(snapshot) ?? new ToolIndex();
    this.#indexes.set(snapshot, index);
    index.add(tools.filter((t) => !index.has(t.name)).map((t) => documentOf(t, snapshot)));
    return index;
  }
}
