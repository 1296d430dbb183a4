import { FIND_TOOLS } from './builtin-names.js';
import { builtinTool } from './progressive.js';
import type {
  DeclaredTool,
  FindToolsResult,
  FindToolsSearch,
  FoundTool,
  NotAddedTool,
  ToolBody,
} from './tool.js';
import { type ToolDocument, ToolIndex } from './tool-index.js';
import { addFound, type ToolSelection } from './tool-selection.js';
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
    'Find more tools. This session has more tools than you are given at once: search them by what they do. The tools it adds can be called from your next step on. Search before saying a task cannot be done.';
  const execute: ToolBody['execute'] = async (args, context) => {
    if (!context.findTools) throw new Error('There are no more tools to search in this step.');
    const query = String(args.query).trim();
    if (query === '') throw new Error('Give a query: what the tool should do.');
    const limit = Math.min(MAX_RESULTS, Math.max(1, Number(args.limit ?? DEFAULT_RESULTS)));
    const result = context.findTools(query, limit);
    if (result.added.length === 0 && result.notAdded.length === 0)
      return { content: `No tool matches "${clip(query, 100)}". Try other words, or fewer.` };
    return {
      content: answerText(result),
      // In `foundTools` order: the best-ranked last, so it is the first one bound.
      found: result.added.map((h) => h.name).reverse(),
    };
  };
  return builtinTool(FIND_TOOLS, description, schema, execute);
}

const line = (h: FoundTool) => `- ${h.name}${h.skill ? ` (${h.skill})` : ''}: ${clip(h.description, 200)}`;

/** Which bound of the budget kept a result out, in words. */
function overText(over: NotAddedTool['over']): string {
  return 'tools' in over
    ? `the tool budget (at most ${over.tools} tools at once) has no room left for them`
    : `the tool budget (at most ${over.chars} characters of tool definitions at once) has no room left for them`;
}

/**
 * What the model reads: exactly the tools bound from its next step, best first; then the results the budget could
 * not hold and why (one section per full bound), and the earlier finds the new ones pushed out.
 */
function answerText(result: FindToolsResult): string {
  const sections: string[] = [
    result.added.length > 0
      ? `Tools you can call from your next step:\n${result.added.map(line).join('\n')}`
      : 'None of the tools found can be added: the tool budget has no room for them.',
  ];
  const byReason = new Map<string, NotAddedTool[]>();
  for (const hit of result.notAdded) {
    const reason = overText(hit.over);
    byReason.set(reason, [...(byReason.get(reason) ?? []), hit]);
  }
  for (const [reason, hits] of byReason)
    sections.push(`Found, but could not be added: ${reason}:\n${hits.map(line).join('\n')}`);
  if (result.dropped.length > 0)
    sections.push(
      `To make room, these tools found earlier are no longer available (find them again to use them): ${result.dropped.join(', ')}.`,
    );
  return sections.join('\n\n');
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

  /**
   * The search for one step: among the tools the session's policy allows (the selection's searchable ones). Its
   * results are split by the selection the next step will make with them (`afterFinding`), so what a find says it
   * added is what is bound; a second find in the same step counts the first one's additions.
   */
  searchFor(selection: ToolSelection, snapshot: AgentRegistrySnapshot): FindToolsSearch | undefined {
    if (!selection.limited) return undefined;
    const budget = selection.budget;
    let addedThisStep: string[] = [];
    return (query, limit) => {
      const index = this.#index(snapshot, selection.searchable);
      const allowed = new Map(selection.searchable.map((t) => [t.name, t]));
      const hits = index
        .search(query, (name) => allowed.has(name), limit)
        .map((hit) => {
          const tool = allowed.get(hit.name) as DeclaredTool;
          return {
            name: tool.name,
            ...(tool.skill ? { skill: tool.skill } : {}),
            description: tool.description,
          };
        });
      const before = selection.afterFinding(addedThisStep);
      const next = selection.afterFinding([...addedThisStep, ...hits.map((h) => h.name).reverse()]);
      const result: FindToolsResult = { added: [], notAdded: [], dropped: [] };
      for (const hit of hits) {
        if (next.byName.has(hit.name) || budget === false) result.added.push(hit);
        else
          result.notAdded.push({
            ...hit,
            over:
              next.left.get(hit.name) === 'chars' ? { chars: budget.maxChars } : { tools: budget.maxTools },
          });
      }
      result.dropped = [...before.because]
        .filter(([name, why]) => why === 'found' && !next.byName.has(name))
        .map(([name]) => name);
      addedThisStep = addFound(addedThisStep, result.added.map((h) => h.name).reverse());
      return result;
    };
  }

  #index(snapshot: AgentRegistrySnapshot, tools: readonly DeclaredTool[]): ToolIndex {
    const index = this.#indexes.get(snapshot) ?? new ToolIndex();
    this.#indexes.set(snapshot, index);
    index.add(tools.filter((t) => !index.has(t.name)).map((t) => documentOf(t, snapshot)));
    return index;
  }
}
