import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { type BaseCheckpointSaver, Command, MemorySaver } from '@langchain/langgraph';
import { AgentModels, activeAgent } from './agents.js';
import { bindDecisions, validateDecisions } from './approvals.js';
import { AgentError } from './errors.js';
import { buildAgentGraph } from './graph.js';
import { newId, THREAD_ID_PATTERN } from './ids.js';
import { TOOL_LIMITS } from './limits.js';
import { McpManager, type McpManagerOptions } from './mcp-manager.js';
import { errorFromEvent, Runner, type TurnBase } from './runner.js';
import { DEFAULT_MEMORY_FILES_BUDGET } from './system-prompt.js';
import { ToolsetBuilder } from './toolset.js';
import type {
  Agent,
  AgentEvent,
  AgentOptions,
  AgentPolicy,
  AgentRegistry,
  AgentStateView,
  ApprovalDecision,
  InvokeResult,
  MemoryFile,
  ResumeOptions,
  RunError,
  ToolInfo,
  TurnOptions,
} from './types.js';

export interface CreateAgentOptions {
  model: BaseChatModel;
  registry: AgentRegistry;
  policy: AgentPolicy;
  /** Default: an in-memory saver (nothing survives the process). */
  checkpointer?: BaseCheckpointSaver;
  options?: AgentOptions;
  /** Overrides for the MCP manager (e.g. how `@langchain/mcp-adapters` is loaded). */
  mcp?: McpManagerOptions;
  /**
   * The chat model of an agent whose file names one (`"vendor:model"` or a tier name); called once per spec string.
   * Without it every agent uses `model`.
   */
  modelFor?: (spec: string) => Promise<BaseChatModel>;
}

const DEFAULTS = {
  contextMessages: 20,
  catalogBudgetChars: 8000,
  recursionLimit: 50,
  maxSubagentDepth: 3,
};

function checkThreadId(threadId: string): void {
  if (typeof threadId !== 'string' || !THREAD_ID_PATTERN.test(threadId)) {
    throw new AgentError(
      'bad-thread-id',
      `Invalid thread id ${JSON.stringify(threadId)}: use letters, digits, ".", "_" or "-".`,
    );
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A copy of the turn's tool environment, refused unless every name is a variable name and every value a string. */
function checkToolEnv(env: Record<string, string>): Record<string, string> {
  if (env === null || typeof env !== 'object' || Array.isArray(env))
    throw new AgentError('bad-option', 'toolEnv must be an object of strings.');
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!ENV_NAME.test(name) || typeof value !== 'string' || value.includes('\0'))
      throw new AgentError(
        'bad-option',
        `toolEnv.${name} is not valid: names are letters, digits and "_"; values are strings without NUL.`,
      );
    out[name] = value;
  }
  return out;
}

function checkMemoryFiles(files: MemoryFile[]): MemoryFile[] {
  if (!Array.isArray(files) || !files.every((f) => typeof f?.path === 'string' && typeof f.text === 'string'))
    throw new AgentError('bad-option', 'memoryFiles must be an array of { path, text } strings.');
  return files.map((f) => ({ path: f.path, text: f.text }));
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0)
    throw new AgentError('bad-option', `${name} must be a positive integer.`);
  return value;
}

/** The agent: one compiled graph, an MCP manager, and the per-turn tool builder, shared by all threads. */
export function createAgent(init: CreateAgentOptions): Agent {
  const o = init.options ?? {};
  const settings = {
    contextMessages: positive('contextMessages', o.contextMessages, DEFAULTS.contextMessages),
    catalogBudgetChars: positive('catalogBudgetChars', o.catalogBudgetChars, DEFAULTS.catalogBudgetChars),
    memoryFilesBudgetChars: positive(
      'memoryFilesBudgetChars',
      o.memoryFilesBudgetChars,
      DEFAULT_MEMORY_FILES_BUDGET,
    ),
    ...(o.instructions !== undefined ? { instructions: o.instructions } : {}),
  };
  const recursionLimit = positive('recursionLimit', o.recursionLimit, DEFAULTS.recursionLimit);
  const mcp = new McpManager({
    ...(o.mcpConnectTimeoutMs !== undefined ? { connectTimeoutMs: o.mcpConnectTimeoutMs } : {}),
    ...(o.mcpToolTimeoutMs !== undefined ? { toolTimeoutMs: o.mcpToolTimeoutMs } : {}),
    ...init.mcp,
  });
  const builder = new ToolsetBuilder(init.policy, mcp, {
    timeoutMs: positive('defaultTimeoutMs', o.defaultTimeoutMs, TOOL_LIMITS.timeoutMs),
    maxOutputChars: positive('maxToolOutputChars', o.maxToolOutputChars, TOOL_LIMITS.maxOutputChars),
    maxReferenceChars: positive('maxReferenceChars', o.maxReferenceChars, TOOL_LIMITS.maxReferenceChars),
    mcpToolTimeoutMs: positive('mcpToolTimeoutMs', o.mcpToolTimeoutMs, TOOL_LIMITS.mcpToolTimeoutMs),
  });
  const checkpointer = init.checkpointer ?? new MemorySaver();
  const runner = new Runner({
    checkpointer,
    recursionLimit,
    maxSubagentDepth: positive('maxSubagentDepth', o.maxSubagentDepth, DEFAULTS.maxSubagentDepth),
  });
  const graph = buildAgentGraph({
    models: new AgentModels(init.model, init.modelFor),
    policy: init.policy,
    builder,
    checkpointer,
    settings,
    subagents: runner,
  });
  runner.graph = graph;

  /** An agent the application names must exist now (`null`: the default agent, stored as ''). */
  function checkAgent(agent: string | null | undefined): string | undefined {
    if (agent === undefined) return undefined;
    if (agent === null || agent === '') return '';
    if (typeof agent !== 'string' || !init.registry.current().getAgent?.(agent))
      throw new AgentError('unknown-agent', `There is no agent ${JSON.stringify(agent)}.`);
    return agent;
  }

  function turnBase(threadId: string, turn: ResumeOptions, decisions: TurnBase['decisions']): TurnBase {
    return {
      snapshot: init.registry.current(),
      approval: turn.approval ?? 'ask',
      cwd: turn.cwd ?? o.cwd ?? process.cwd(),
      memory: turn.memory ?? [],
      decisions,
      // Set last: a tool always learns the real thread, even if the application's env names another one.
      toolEnv: { ...(turn.toolEnv ? checkToolEnv(turn.toolEnv) : {}), BIRDIE_SESSION_ID: threadId },
      journal: turn.journal,
      policyKey: threadId,
      path: [],
      memoryFiles: turn.memoryFiles ? checkMemoryFiles(turn.memoryFiles) : [],
      memoryStore: turn.memoryStore,
      switchAgent: undefined,
      files: turn.files,
    };
  }

  function stream(input: string, turn: TurnOptions): AsyncIterable<AgentEvent> {
    checkThreadId(turn.threadId);
    const { threadId, signal, ...rest } = turn;
    const agent = checkAgent(turn.agent);
    const base = turnBase(threadId, rest, {});
    const message = new HumanMessage({ id: newId('human'), content: input });
    return runner.run(
      { messages: [message], ...(agent !== undefined ? { sender: agent } : {}) },
      threadId,
      base,
      signal,
    );
  }

  async function threadValues(threadId: string, checkpointId?: string) {
    const config = checkpointId
      ? { configurable: { thread_id: threadId, checkpoint_id: checkpointId } }
      : { configurable: { thread_id: threadId } };
    const snapshot = await graph.getState(config);
    const values = (snapshot.values ?? {}) as {
      messages?: BaseMessage[];
      loadedSkills?: string[];
      sender?: string;
    };
    return { snapshot, values };
  }

  return {
    stream,

    resume(threadId: string, decisions: Record<string, ApprovalDecision>, options: ResumeOptions = {}) {
      checkThreadId(threadId);
      const agent = checkAgent(options.agent);
      const base = turnBase(threadId, options, {});
      return (async function* () {
        const pending = await runner.pendingApprovals(threadId);
        if (pending.length === 0)
          throw new AgentError('nothing-to-resume', `Thread ${threadId} has no pending approvals.`);
        validateDecisions(pending, decisions);
        const bound = bindDecisions(pending, decisions);
        let switchAgent: string | undefined;
        if (agent !== undefined) {
          const { values } = await threadValues(threadId);
          if ((values.sender ?? '') !== agent) switchAgent = agent;
        }
        yield* runner.run(
          new Command({ resume: bound }),
          threadId,
          { ...base, decisions: bound, switchAgent },
          options.signal,
        );
      })();
    },

    async invoke(input: string, turn: TurnOptions): Promise<InvokeResult> {
      const result: InvokeResult = {
        status: 'ok',
        text: '',
        usage: { inputTokens: 0, outputTokens: 0 },
        messages: [],
        pendingApprovals: [],
      };
      let failure: RunError | undefined;
      for await (const event of stream(input, turn)) {
        // The session's own events have no path or a path of one; a subagent's are deeper.
        const own = (event.agent?.length ?? 0) <= 1;
        if (event.agent?.length === 1) result.agent = event.agent[0];
        if (event.type === 'usage') {
          result.usage.inputTokens += event.inputTokens;
          result.usage.outputTokens += event.outputTokens;
        } else if (event.type === 'message' && own) {
          result.messages.push(event.message);
          if (AIMessage.isInstance(event.message)) result.text = event.message.text;
        } else if (event.type === 'approval-request') {
          result.pendingApprovals.push(...event.requests);
        } else if (event.type === 'error' && own) {
          failure = event.error;
        } else if (event.type === 'done') {
          if (event.status === 'aborted') throw new AgentError('aborted', 'The run was cancelled.');
          if (event.status === 'error')
            throw errorFromEvent(failure ?? { code: 'internal', message: 'The run failed.' });
          if (event.status === 'interrupted') result.status = 'interrupted';
        }
      }
      if (result.status === 'interrupted') result.text = '';
      return result;
    },

    async getState(threadId: string, options: { checkpointId?: string } = {}): Promise<AgentStateView> {
      checkThreadId(threadId);
      const { snapshot, values } = await threadValues(threadId, options.checkpointId);
      return {
        messages: values.messages ?? [],
        loadedSkills: values.loadedSkills ?? [],
        ...(values.sender ? { agent: values.sender } : {}),
        pendingApprovals: options.checkpointId ? [] : await runner.pendingApprovals(threadId, snapshot),
      };
    },

    async toolsFor(threadId: string, options: { agent?: string | null } = {}): Promise<ToolInfo[]> {
      checkThreadId(threadId);
      const snapshot = init.registry.current();
      let name = checkAgent(options.agent);
      let loaded: string[] = [];
      if (snapshot.getAgent) {
        const { values } = await threadValues(threadId);
        name ??= values.sender;
        loaded = values.loadedSkills ?? [];
      }
      const agent = activeAgent(name, snapshot);
      const toolset = await builder.build(
        threadId,
        snapshot,
        agent.spec ? { spec: agent.spec, loaded } : undefined,
      );
      return toolset.tools.map((t) => ({
        name: t.name,
        ...(t.skill ? { skill: t.skill } : {}),
        description: t.description,
      }));
    },

    async close() {
      runner.closed = true;
      await mcp.close();
    },
  };
}
