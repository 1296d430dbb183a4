import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage } from '@langchain/core/messages';
import {
  type BaseCheckpointSaver,
  Command,
  GraphRecursionError,
  MemorySaver,
  type StateSnapshot,
} from '@langchain/langgraph';

import { type BoundDecisions, bindDecisions, isApprovalInterrupt, validateDecisions } from './approvals.js';
import { AgentError } from './errors.js';
import { EventMapper } from './events.js';
import { buildAgentGraph } from './graph.js';
import { newId, THREAD_ID_PATTERN } from './ids.js';
import { TOOL_LIMITS } from './limits.js';
import { McpManager, type McpManagerOptions } from './mcp-manager.js';
import { interruptAnswered } from './pending-answer.js';
import { ToolsetBuilder } from './toolset.js';
import type { TurnContext } from './turn-context.js';
import type {
  Agent,
  AgentEvent,
  AgentOptions,
  AgentPolicy,
  AgentRegistry,
  AgentStateView,
  ApprovalDecision,
  ApprovalRequest,
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
}

const DEFAULTS = {
  contextMessages: 20,
  catalogBudgetChars: 8000,
  recursionLimit: 50,
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

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0)
    throw new AgentError('bad-option', `${name} must be a positive integer.`);
  return value;
}

function isAbort(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  const e = error as { name?: string; code?: string } | null;
  return e?.name === 'AbortError' || e?.code === 'aborted';
}

/** The agent: one compiled graph, an MCP manager, and the per-turn tool builder, shared by all threads. */
export function createAgent(init: CreateAgentOptions): Agent {
  const o = init.options ?? {};
  const settings = {
    contextMessages: positive('contextMessages', o.contextMessages, DEFAULTS.contextMessages),
    catalogBudgetChars: positive('catalogBudgetChars', o.catalogBudgetChars, DEFAULTS.catalogBudgetChars),
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
  const graph = buildAgentGraph({ model: init.model, policy: init.policy, builder, checkpointer, settings });
  const running = new Set<string>();
  let closed = false;

  const threadConfig = (threadId: string) => ({ configurable: { thread_id: threadId } });

  /** True when the thread's open interrupt was already answered by a resume whose process stopped mid-way. */
  async function answeredBeforeStop(threadId: string): Promise<boolean> {
    const tuple = await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '' } });
    return interruptAnswered(tuple?.pendingWrites ?? []);
  }

  async function pendingApprovals(threadId: string, snapshot?: StateSnapshot): Promise<ApprovalRequest[]> {
    const state = snapshot ?? (await graph.getState(threadConfig(threadId)));
    const requests = state.tasks.flatMap((task) =>
      (task.interrupts ?? []).flatMap((i) => (isApprovalInterrupt(i.value) ? i.value.requests : [])),
    );
    if (requests.length === 0 || (await answeredBeforeStop(threadId))) return [];
    return requests;
  }

  async function* run(
    input: unknown,
    threadId: string,
    turn: ResumeOptions,
    decisions: BoundDecisions = {},
  ): AsyncGenerator<AgentEvent> {
    if (closed) throw new AgentError('closed', 'The agent is closed.');
    if (running.has(threadId))
      throw new AgentError('busy', `Thread ${threadId} already has a run in progress.`);
    running.add(threadId);
    const mapper = new EventMapper();
    let status: 'ok' | 'error' | 'aborted' = 'ok';
    try {
      const context: TurnContext = {
        snapshot: init.registry.current(),
        approval: turn.approval ?? 'ask',
        cwd: turn.cwd ?? o.cwd ?? process.cwd(),
        memory: turn.memory ?? [],
        decisions,
        // Set last: a tool always learns the real thread, even if the application's env names another one.
        toolEnv: { ...turn.toolEnv, BIRDIE_SESSION_ID: threadId },
        journal: turn.journal,
      };
      const stream = await graph.stream(input as never, {
        configurable: { thread_id: threadId },
        context,
        recursionLimit,
        // Each step's checkpoint is on disk before the next step starts: the model's tool calls are stored before
        // any tool runs, so a crash can never lose a call whose side effect already happened.
        durability: 'sync',
        streamMode: ['updates', 'custom'],
        ...(turn.signal ? { signal: turn.signal } : {}),
      });
      for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
        for (const event of mapper.map(mode, chunk)) yield event;
      }
    } catch (error) {
      if (isAbort(error, turn.signal)) status = 'aborted';
      else {
        status = 'error';
        yield { type: 'error', error: describeRunError(error, recursionLimit) };
      }
    } finally {
      running.delete(threadId);
    }
    yield { type: 'done', status: status === 'ok' && mapper.interrupted ? 'interrupted' : status };
  }

  return {
    stream(input: string, turn: TurnOptions) {
      checkThreadId(turn.threadId);
      const { threadId, ...rest } = turn;
      if (rest.toolEnv) rest.toolEnv = checkToolEnv(rest.toolEnv);
      return run({ messages: [new HumanMessage({ id: newId('human'), content: input })] }, threadId, rest);
    },

    resume(threadId: string, decisions: Record<string, ApprovalDecision>, options: ResumeOptions = {}) {
      checkThreadId(threadId);
      const turn = options.toolEnv ? { ...options, toolEnv: checkToolEnv(options.toolEnv) } : options;
      return (async function* () {
        const pending = await pendingApprovals(threadId);
        if (pending.length === 0)
          throw new AgentError('nothing-to-resume', `Thread ${threadId} has no pending approvals.`);
        validateDecisions(pending, decisions);
        const bound = bindDecisions(pending, decisions);
        yield* run(new Command({ resume: bound }), threadId, turn, bound);
      })();
    },

    async getState(threadId: string, options: { checkpointId?: string } = {}): Promise<AgentStateView> {
      checkThreadId(threadId);
      const config = options.checkpointId
        ? { configurable: { thread_id: threadId, checkpoint_id: options.checkpointId } }
        : threadConfig(threadId);
      const snapshot = await graph.getState(config);
      const values = (snapshot.values ?? {}) as {
        messages?: AgentStateView['messages'];
        loadedSkills?: string[];
      };
      return {
        messages: values.messages ?? [],
        loadedSkills: values.loadedSkills ?? [],
        pendingApprovals: options.checkpointId ? [] : await pendingApprovals(threadId, snapshot),
      };
    },

    async toolsFor(threadId: string): Promise<ToolInfo[]> {
      checkThreadId(threadId);
      const toolset = await builder.build(threadId, init.registry.current());
      return toolset.tools.map((t) => ({
        name: t.name,
        ...(t.skill ? { skill: t.skill } : {}),
        description: t.description,
      }));
    },

    async close() {
      closed = true;
      await mcp.close();
    },
  };
}

function describeRunError(error: unknown, limit: number): RunError {
  if (error instanceof GraphRecursionError || (error as { name?: string })?.name === 'GraphRecursionError') {
    return {
      code: 'recursion-limit',
      message: `Stopped after ${limit} steps without a final answer (recursion limit). Ask again with a narrower request, or raise recursionLimit.`,
    };
  }
  if (error instanceof AgentError) return { code: error.code, message: error.message };
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof AgentError) return { code: cause.code, message: cause.message };
  // A typed failure of a part the application gave us (the checkpointer's full disk, a lost lease) keeps its code,
  // and its hint apart, so the application can word it as it words the same failure elsewhere.
  const typed = error as { code?: unknown; hint?: unknown; message?: unknown } | null;
  if (error instanceof Error && typeof typed?.code === 'string' && /^[a-z][a-z0-9-]*$/.test(typed.code)) {
    return {
      code: typed.code,
      message: error.message,
      ...(typeof typed.hint === 'string' ? { hint: typed.hint } : {}),
    };
  }
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}
