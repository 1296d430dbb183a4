import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { type BaseCheckpointSaver, Command, MemorySaver } from '@langchain/langgraph';
import { createSwitchModelTool } from './agent-tools.js';
import { AgentModels, activeAgent, type ModelForResult, type ModelTuning } from './agents.js';
import type { ApprovalRule } from './approval-pattern.js';
import { bindDecisions, validateDecisions } from './approvals.js';
import { compactThread } from './compact-thread.js';
import { AgentError } from './errors.js';
import { buildAgentGraph } from './graph.js';
import { newId, THREAD_ID_PATTERN } from './ids.js';
import { TOOL_LIMITS } from './limits.js';
import { McpManager, type McpManagerOptions } from './mcp-manager.js';
import { McpSession } from './mcp-session.js';
import { callsOf, danglingCalls } from './repair.js';
import { compileRules } from './rule-set.js';
import { errorFromEvent, Runner, type TurnBase } from './runner.js';
import { DEFAULT_MEMORY_FILES_BUDGET } from './system-prompt.js';
import { archiveCompacted, liveOffset, wholeHistory } from './thread-archive.js';
import type { DeclaredTool } from './tool.js';
import { ToolBinding } from './tool-binding.js';
import { DEFAULT_TOOL_BUDGET, type ToolBudget } from './tool-selection.js';
import { ToolsetBuilder } from './toolset.js';
import type {
  Agent,
  AgentEvent,
  AgentOptions,
  AgentPolicy,
  AgentRegistry,
  AgentStateView,
  ApprovalDecision,
  ArchiveRecord,
  CompactionRecord,
  CompactionResult,
  CompactOptions,
  GetStateOptions,
  InvokeResult,
  MemoryFile,
  ResumeOptions,
  RunError,
  SessionApproval,
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
  /** Overrides for the MCP manager (its timeouts, who answers servers' requests). */
  mcp?: McpManagerOptions;
  /** The name of `model` in events (`usage.model`), e.g. `openai:gpt-4o-mini`. Default: from the model object. */
  modelName?: string;
  /**
   * Resolves a model named as the application names models (`"vendor:model"` or a tier name): an agent file's
   * `model`, the turn's `model`, the tiers. Called once per spec string (and agent `tuning`: an agent file's
   * `temperature` and `max_retries`, to apply to the model it answers); it may answer the model or `{ model, name }`.
   * Without it every agent uses `model`.
   */
  modelFor?: (spec: string, tuning?: ModelTuning) => Promise<ModelForResult>;
  /**
   * Tier names `modelFor` resolves (`fast`, `default`, `strong`). With any, the model gets `switch_model`, and a
   * `fast` tier writes the compaction summaries.
   */
  tiers?: readonly string[];
  /**
   * The application's approval rules (the user's settings, a trusted project's, the server operator's), fixed for
   * the agent; agent files, loaded skills and session choices add theirs per step. A malformed pattern throws
   * `ApprovalRuleError` here.
   */
  approvalRules?: readonly ApprovalRule[];
}

const DEFAULTS = {
  contextMessages: 1000,
  threshold: 0.8,
  catalogBudgetChars: 8000,
  recursionLimit: 50,
  maxSubagentDepth: 3,
};

function checkThreadId(threadId: string): void {
  if (typeof threadId !== 'string' || !THREAD_ID_PATTERN.test(threadId)) {
    throw new AgentError(
      'bad-thread-id',
      `Invalid thread id ${JSON.stringify(threadId)}: use letters, digits, ".", "_", "-", "~" or "@".`,
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

function checkModelSpec(spec: string): string {
  if (typeof spec !== 'string' || spec.trim() === '' || /[\u0000-\u001f]/.test(spec))
    throw new AgentError('bad-option', 'model must be a model name (a non-empty string on one line).');
  return spec.trim();
}

function checkTiers(tiers: readonly string[] | undefined): string[] {
  if (tiers === undefined) return [];
  if (!Array.isArray(tiers) || !tiers.every((t) => typeof t === 'string' && /^[a-z][a-z0-9_-]*$/.test(t)))
    throw new AgentError('bad-option', 'tiers must be names of lowercase letters, digits, "_" and "-".');
  return [...new Set(tiers)];
}

function compactionThreshold(compaction: AgentOptions['compaction']): number | undefined {
  if (compaction === false) return undefined;
  const threshold = compaction?.threshold ?? DEFAULTS.threshold;
  if (typeof threshold !== 'number' || !(threshold > 0 && threshold < 1))
    throw new AgentError('bad-option', 'compaction.threshold must be a number between 0 and 1.');
  return threshold;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0)
    throw new AgentError('bad-option', `${name} must be a positive integer.`);
  return value;
}

function toolBudget(budget: AgentOptions['toolBudget']): ToolBudget | false {
  if (budget === false) return false;
  if (budget !== undefined && (budget === null || typeof budget !== 'object'))
    throw new AgentError('bad-option', 'toolBudget must be false or { maxTools?, maxChars? }.');
  return {
    maxTools: positive('toolBudget.maxTools', budget?.maxTools, DEFAULT_TOOL_BUDGET.maxTools),
    maxChars: positive('toolBudget.maxChars', budget?.maxChars, DEFAULT_TOOL_BUDGET.maxChars),
  };
}

const APPROVAL_MODES: ReadonlySet<string> = new Set(['ask', 'always', 'never']);

/**
 * The application's parts of a turn's context that no other check covers, checked when the turn starts so a malformed
 * one fails before any node runs (LangGraph is given no context schema to parse at every run).
 */
function checkTurn(turn: ResumeOptions): void {
  const bad = (what: string) => new AgentError('bad-option', what);
  if (turn.approval !== undefined && !APPROVAL_MODES.has(turn.approval))
    throw bad('approval must be "ask", "always" or "never".');
  if (turn.askRawCommands !== undefined && typeof turn.askRawCommands !== 'boolean')
    throw bad('askRawCommands must be true or false.');
  if (turn.cwd !== undefined && typeof turn.cwd !== 'string') throw bad('cwd must be a folder path.');
  if (turn.memory !== undefined && !Array.isArray(turn.memory)) throw bad('memory must be an array.');
  for (const key of ['journal', 'memoryStore', 'taskStore', 'files'] as const) {
    const value = turn[key];
    if (value !== undefined && (value === null || typeof value !== 'object'))
      throw bad(`${key} must be an object.`);
  }
}

function checkPinned(names: string[]): string[] {
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string'))
    throw new AgentError('bad-option', 'pinnedTools must be an array of tool names.');
  return [...names];
}

/** The rules, validated now (`compileRules` throws `ApprovalRuleError`), frozen so the compiled set can be cached. */
function checkRules(rules: readonly ApprovalRule[] | undefined): readonly ApprovalRule[] {
  if (rules === undefined) return [];
  const copy = Object.freeze(
    rules.map((rule) => Object.freeze({ ...rule, source: Object.freeze({ ...rule.source }) })),
  );
  compileRules(copy);
  return copy;
}

/** The agent: one compiled graph, an MCP manager, and the per-turn tool builder, shared by all threads. */
export function createAgent(init: CreateAgentOptions): Agent {
  const o = init.options ?? {};
  const settings = {
    contextMessages: positive('contextMessages', o.contextMessages, DEFAULTS.contextMessages),
    ...(o.contextWindow !== undefined
      ? { contextWindow: positive('contextWindow', o.contextWindow, 0) }
      : {}),
    threshold: compactionThreshold(o.compaction),
    catalogBudgetChars: positive('catalogBudgetChars', o.catalogBudgetChars, DEFAULTS.catalogBudgetChars),
    memoryFilesBudgetChars: positive(
      'memoryFilesBudgetChars',
      o.memoryFilesBudgetChars,
      DEFAULT_MEMORY_FILES_BUDGET,
    ),
    ...(o.instructions !== undefined ? { instructions: o.instructions } : {}),
    approvalRules: checkRules(init.approvalRules),
  };
  const recursionLimit = positive('recursionLimit', o.recursionLimit, DEFAULTS.recursionLimit);
  const mcp = new McpManager({
    ...(o.mcpConnectTimeoutMs !== undefined ? { connectTimeoutMs: o.mcpConnectTimeoutMs } : {}),
    ...(o.mcpToolTimeoutMs !== undefined ? { toolTimeoutMs: o.mcpToolTimeoutMs } : {}),
    ...init.mcp,
  });
  const models = new AgentModels(init.model, init.modelName, init.modelFor, checkTiers(init.tiers));
  const builder = new ToolsetBuilder(
    init.policy,
    mcp,
    {
      timeoutMs: positive('defaultTimeoutMs', o.defaultTimeoutMs, TOOL_LIMITS.timeoutMs),
      maxOutputChars: positive('maxToolOutputChars', o.maxToolOutputChars, TOOL_LIMITS.maxOutputChars),
      maxReferenceChars: positive('maxReferenceChars', o.maxReferenceChars, TOOL_LIMITS.maxReferenceChars),
      mcpToolTimeoutMs: positive('mcpToolTimeoutMs', o.mcpToolTimeoutMs, TOOL_LIMITS.mcpToolTimeoutMs),
    },
    models.tiers.length > 0
      ? createSwitchModelTool(models.tiers, async (tier) => (await models.resolve(tier)).name)
      : undefined,
    new ToolBinding(toolBudget(o.toolBudget)),
  );
  const checkpointer = init.checkpointer ?? new MemorySaver();
  const runner = new Runner({
    checkpointer,
    recursionLimit,
    maxSubagentDepth: positive('maxSubagentDepth', o.maxSubagentDepth, DEFAULTS.maxSubagentDepth),
  });
  const graph = buildAgentGraph({
    models,
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

  /** The folder a session's tools work in (and its MCP servers' root): the caller's, else the agent's. */
  function sessionFolder(cwd: string | undefined): string {
    if (cwd !== undefined && typeof cwd !== 'string')
      throw new AgentError('bad-option', 'cwd must be a folder path.');
    return cwd ?? o.cwd ?? process.cwd();
  }

  function turnBase(threadId: string, turn: ResumeOptions, decisions: TurnBase['decisions']): TurnBase {
    checkTurn(turn);
    return {
      snapshot: init.registry.current(),
      approval: turn.approval ?? 'ask',
      askRawCommands: turn.askRawCommands ?? false,
      cwd: sessionFolder(turn.cwd),
      memory: turn.memory ?? [],
      decisions,
      // Set last: a tool always learns the real thread, even if the application's env names another one.
      toolEnv: { ...(turn.toolEnv ? checkToolEnv(turn.toolEnv) : {}), BIRDIE_SESSION_ID: threadId },
      journal: turn.journal,
      policyKey: threadId,
      path: [],
      memoryFiles: turn.memoryFiles ? checkMemoryFiles(turn.memoryFiles) : [],
      memoryStore: turn.memoryStore,
      taskStore: turn.taskStore,
      switchAgent: undefined,
      files: turn.files,
      model: turn.model === undefined ? undefined : checkModelSpec(turn.model),
      // A session's own thread holds its approvals in its state; only subagents are given their parents'.
      sessionApprovals: undefined,
      ...(turn.pinnedTools !== undefined ? { pinnedTools: checkPinned(turn.pinnedTools) } : {}),
      ...(turn.mcp ? { mcp: turn.mcp } : {}),
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
      compactions?: CompactionRecord[];
      archives?: ArchiveRecord[];
      sessionApprovals?: SessionApproval[];
      foundTools?: string[];
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
        validateDecisions(pending, decisions, base.cwd);
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

    async getState(threadId: string, options: GetStateOptions = {}): Promise<AgentStateView> {
      checkThreadId(threadId);
      const { snapshot, values } = await threadValues(threadId, options.checkpointId);
      const messages = options.recent
        ? (values.messages ?? [])
        : await wholeHistory(values, async (id) => (await threadValues(threadId, id)).values);
      return {
        messages,
        ...(options.recent ? { earlier: liveOffset(values) } : {}),
        compactions: values.compactions ?? [],
        loadedSkills: values.loadedSkills ?? [],
        ...(values.sender ? { agent: values.sender } : {}),
        pendingApprovals: options.checkpointId ? [] : await runner.pendingApprovals(threadId, snapshot),
        sessionApprovals: values.sessionApprovals ?? [],
      };
    },

    async currentAgent(threadId: string): Promise<string | undefined> {
      checkThreadId(threadId);
      // `sender` is a last-value channel: the checkpoint holds it as the state has it, while the history (a delta
      // channel) is rebuilt from the writes of the steps before: a turn that only needs its agent skips that.
      const tuple = await checkpointer.getTuple({ configurable: { thread_id: threadId } });
      const sender = tuple?.checkpoint.channel_values.sender;
      return typeof sender === 'string' && sender !== '' ? sender : undefined;
    },

    async dropPending(threadId: string, reason: string): Promise<string[]> {
      checkThreadId(threadId);
      if (runner.running.has(threadId))
        throw new AgentError('busy', `Thread ${threadId} has a run in progress.`);
      const { snapshot, values } = await threadValues(threadId);
      if ((await runner.pendingApprovals(threadId, snapshot)).length === 0) return [];
      const messages = values.messages ?? [];
      const ids = danglingCalls(messages);
      const names = new Map<string, string>();
      for (const m of messages)
        if (AIMessage.isInstance(m))
          for (const c of callsOf(m)) if (c.id) names.set(c.id, c.name ?? 'unknown');
      const answers = ids.map(
        (id) =>
          new ToolMessage({
            id: newId('tool'),
            tool_call_id: id,
            name: names.get(id) ?? 'unknown',
            status: 'error',
            content: `Not run: ${reason}`,
          }),
      );
      // Written as the tools step's result: the thread no longer waits, and its next turn starts from the user.
      await graph.updateState({ configurable: { thread_id: threadId } }, { messages: answers }, 'tools');
      return ids;
    },

    async compact(threadId: string, options: CompactOptions = {}): Promise<CompactionResult | undefined> {
      checkThreadId(threadId);
      if (runner.closed) throw new AgentError('closed', 'The agent is closed.');
      if (runner.running.has(threadId))
        throw new AgentError(
          'busy',
          `Thread ${threadId} has a run in progress; compact it once the run ends.`,
        );
      const { values } = await threadValues(threadId);
      const messages = values.messages ?? [];
      const last = messages.at(-1);
      if (last && AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0)
        throw new AgentError(
          'busy',
          `Thread ${threadId} has tool calls waiting for their results or approvals; answer or continue first.`,
        );
      const snapshot = init.registry.current();
      const agent = activeAgent(values.sender, snapshot);
      const model = options.model === undefined ? undefined : checkModelSpec(options.model);
      // Held like a run, so a turn of this process cannot start on the thread while its summary is written.
      runner.running.add(threadId);
      try {
        const compacted = await compactThread({
          graph,
          threadId,
          messages,
          offset: liveOffset(values),
          records: values.compactions ?? [],
          routed: await models.forCall(agent, messages, { ...(model ? { turn: model } : {}), session: true }),
          models,
          contextWindow: settings.contextWindow,
          describeSkill: (name) => snapshot.getSkill(name)?.description,
          ...(options.instructions ? { instructions: options.instructions } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
        // The summarised part is archived at once: the thread's next start decodes only what follows it.
        if (compacted?.applied) await archiveCompacted(graph, threadId);
        return compacted;
      } finally {
        runner.running.delete(threadId);
      }
    },

    async mcpSession(
      threadId: string,
      options: { connect?: boolean; cwd?: string } = {},
    ): Promise<McpSession> {
      checkThreadId(threadId);
      // A server this starts gets the roots a turn would give it (the session's folder), not none.
      if (options.connect !== false) builder.placeIn({ cwd: sessionFolder(options.cwd) });
      const allowed = init.policy
        .allowedSkills(threadId, init.registry.current())
        .filter(
          (s) =>
            s.mcpServer !== undefined &&
            (options.connect !== false || mcp.capabilities(s.name) !== undefined),
        );
      const connected = await Promise.allSettled(allowed.map((s) => mcp.tools(s.name, s.mcpServer as never)));
      const servers = allowed.filter((_, i) => connected[i]?.status === 'fulfilled').map((s) => s.name);
      return new McpSession(mcp, threadId, servers);
    },

    async toolsFor(
      threadId: string,
      options: { agent?: string | null; pinnedTools?: string[]; cwd?: string } = {},
    ): Promise<ToolInfo[]> {
      checkThreadId(threadId);
      const snapshot = init.registry.current();
      const { values } = await threadValues(threadId);
      const agent = activeAgent(checkAgent(options.agent) ?? values.sender, snapshot);
      const toolset = await builder.build(
        threadId,
        snapshot,
        agent.spec ? { spec: agent.spec, loaded: values.loadedSkills ?? [] } : undefined,
        { cwd: sessionFolder(options.cwd) },
      );
      // What the thread's next model call would be given (the tool budget may hold tools back).
      const selection = builder.binding.select(toolset, {
        snapshot,
        spec: agent.spec,
        pinned: options.pinnedTools,
        foundTools: values.foundTools ?? [],
        messages: values.messages ?? [],
      });
      const info = (t: DeclaredTool, bound?: ToolInfo['bound']): ToolInfo => ({
        name: t.name,
        ...(t.skill ? { skill: t.skill } : {}),
        description: t.description,
        ...(bound !== undefined ? { bound } : {}),
      });
      if (!selection.limited) return toolset.tools.map((t) => info(t));
      return [
        ...selection.tools.map((t) => info(t, selection.because.get(t.name) ?? 'search')),
        ...selection.held.map((t) => info(t, false)),
      ];
    },

    async close() {
      runner.close();
      await mcp.close();
    },
  };
}
