import { AIMessage } from '@langchain/core/messages';
import { interrupt, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { type AgentModels, activeAgent } from './agents.js';
import type { ApprovalRule } from './approval-pattern.js';
import { approvalSource, approvalsInForce, approvedForSession } from './approval-source.js';
import type { ApprovalInterrupt, BoundDecisions } from './approvals.js';
import type { McpNotice } from './mcp-connection.js';
import { turnRequests } from './mcp-sampling.js';
import { rulesInForce } from './rules-in-force.js';
import { wholeToolGrantMayAnswer } from './session-approval.js';
import type { AgentStateUpdate, AgentStateValue } from './state.js';
import type { SubagentRuns } from './subagents.js';
import type { DeclaredTool, Delegate } from './tool.js';
import type { DecisionBook } from './tool-confirm.js';
import { confirmCalls } from './tool-confirm.js';
import { executeCalls } from './tool-execute.js';
import { type PlannedCall, planCalls } from './tool-plan.js';
import { foundBy } from './tool-selection.js';
import type { ToolsetBuilder } from './toolset.js';
import { emit, emitAgent, turnContext } from './turn-context.js';
import type { AgentPolicy, AgentRegistrySnapshot, SessionApproval } from './types.js';

/** `{ [key]: value }` when the value is defined, else nothing (for optional properties under exactOptionalPropertyTypes). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

export interface ToolsNodeSettings {
  contextMessages: number;
  /** The application's approval rules (`CreateAgentOptions.approvalRules`). */
  approvalRules?: readonly ApprovalRule[];
}

/** Runs the last AIMessage's tool calls in three steps: plan (policy, loop guard, build), confirm, execute. */
export function createToolsNode(
  builder: ToolsetBuilder,
  policy: AgentPolicy,
  settings: ToolsNodeSettings,
  subagents: SubagentRuns,
  models: AgentModels,
) {
  return async (state: AgentStateValue, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    const context = turnContext(config);
    const active = activeAgent(state.sender, context.snapshot);
    emitAgent(config, active.name);
    if (active.spec?.timeout) context.deadline?.arm(active.spec.timeout, active.name as string);
    const aiIndex = state.messages.length - 1;
    const ai = state.messages[aiIndex];
    if (!ai || !AIMessage.isInstance(ai)) return {};
    // The same set the model was given (the agent's, its loaded skills), recomputed: nothing else can run.
    const toolset = await builder.build(
      context.policyKey,
      context.snapshot,
      active.spec ? { spec: active.spec, loaded: state.loadedSkills } : undefined,
      { cwd: context.cwd },
    );
    // The tools the model was given this step (the budget held some back): a call to another one is refused.
    const selection = builder.binding.select(toolset, {
      snapshot: context.snapshot,
      spec: active.spec,
      pinned: context.pinnedTools,
      foundTools: state.foundTools,
      messages: state.messages.slice(0, aiIndex),
    });
    const path = active.name ? [...context.path, active.name] : undefined;
    const inForce = approvalsInForce(context.sessionApprovals, state.sessionApprovals);
    const rules = rulesInForce({
      base: settings.approvalRules ?? [],
      ...optional('agent', active.spec),
      toolset,
      loadedSkills: state.loadedSkills,
      approvals: inForce,
      snapshot: context.snapshot,
    });
    const plan = planCalls({
      ai,
      messages: state.messages,
      aiIndex,
      toolset: { ...toolset, byName: selection.byName },
      policy,
      policyKey: context.policyKey,
      ...optional('foundTools', selection.limited ? foundBy(selection) : undefined),
      snapshot: context.snapshot,
      approval: context.approval,
      ...(context.askRawCommands ? { askRawCommands: true } : {}),
      ...(path ? { agentPath: path } : {}),
      approvedForSession: (tool) => approvedForSession(inForce, tool, context.snapshot),
      ...optional('rules', rules),
      root: context.cwd,
    });
    const runContext = {
      cwd: context.cwd,
      env: context.toolEnv,
      messages: state.messages,
      loadedSkills: state.loadedSkills,
      contextMessages: settings.contextMessages,
      compactions: state.compactions ?? [],
      ...(context.signal ? { signal: context.signal } : {}),
      ...(context.memoryStore ? { memoryStore: context.memoryStore } : {}),
      ...(context.taskStore ? { taskStore: context.taskStore } : {}),
      ...(context.files ? { files: context.files } : {}),
      ...optional('findTools', builder.binding.searchFor(selection, context.snapshot)),
      // What an MCP server asks and says while one of its tools runs: the turn's front end answers, the events hear.
      mcp: {
        owner: context.policyKey,
        requests: turnRequests(
          context.mcp,
          async () => (context.model ? models.resolve(context.model) : models.default),
          (usage) => emit(config, usage),
        ),
        onNotice: (notice: McpNotice) => emit(config, { type: 'mcp-notice', notice }),
        ...(context.mcpTurn ? { turn: context.mcpTurn } : {}),
      },
    };
    await attachPreviews(plan, context.decisions, runContext);
    // Nothing has run yet: on resume this node starts again from the top and each `interrupt` returns its answer.
    const decisions = confirmCalls(plan, context.decisions, (requests) =>
      interrupt<ApprovalInterrupt, BoundDecisions>({ kind: 'birdie/approval', requests }),
    );
    const delegate: Delegate | undefined = path
      ? (request) =>
          subagents.start({
            parent: { ...context, sessionApprovals: inForce },
            ancestors: path,
            emit: (event) => emit(config, event),
            ...request,
          })
      : undefined;
    // Known before anything runs: a turn cancelled while the approved calls run keeps them (see CallsInProgress).
    const approvals = newSessionApprovals(plan, decisions, context.snapshot, context.askRawCommands);
    context.callsInProgress?.approved(approvals);
    const result = await executeCalls({
      plan,
      decisions,
      config,
      journal: context.journal,
      ...(context.callsInProgress ? { inProgress: context.callsInProgress } : {}),
      ...optional(
        'deniedBy',
        rules &&
          ((tool: DeclaredTool, args: Record<string, unknown>) => {
            const decided = rules.decide({ tool, args, root: context.cwd });
            return decided?.effect === 'deny' ? decided : undefined;
          }),
      ),
      context: { ...runContext, ...(delegate ? { delegate } : {}) },
    });
    const update: AgentStateUpdate = { messages: result.messages };
    if (approvals.length > 0) update.sessionApprovals = approvals;
    if (result.loaded.length > 0) update.loadedSkills = result.loaded;
    if (result.found.length > 0) update.foundTools = result.found;
    // The application's choice on resume beats a handoff the model made in the same step.
    const next = context.switchAgent ?? result.handoff;
    if (next !== undefined) update.sender = next;
    return update;
  };
}

/**
 * The planned changes of each call about to be asked about, computed now (the files as they are when the question
 * is shown). A call already decided (a resume) is not previewed again.
 */
async function attachPreviews(
  plan: PlannedCall[],
  decided: BoundDecisions,
  context: Parameters<NonNullable<PlannedCall & { kind: 'run' }>['invocation']['run']>[0],
): Promise<void> {
  await Promise.all(
    plan.map(async (p) => {
      if (p.kind !== 'run' || !p.request || !p.invocation.preview || Object.hasOwn(decided, p.id)) return;
      p.request.preview = await p.invocation.preview({ ...context, callId: p.id });
    }),
  );
}

/** Tools the user approved for the session in this step, each bound to the file that declares it now. */
function newSessionApprovals(
  plan: readonly PlannedCall[],
  decisions: DecisionBook,
  snapshot: AgentRegistrySnapshot,
  askRawCommands: boolean,
): SessionApproval[] {
  const at = new Date().toISOString();
  const approvals: SessionApproval[] = [];
  for (const p of plan) {
    if (p.kind !== 'run' || !p.request) continue;
    const decision = decisions.get({ id: p.id, digest: p.invocation.digest });
    if (decision?.type !== 'approve' || decision.scope !== 'session') continue;
    // A grant of the whole tool that could never answer a call like this one (an ask rule's question, a raw command
    // of a turn that asks them every time) would only answer calls nothing asked about yet: it approves this call
    // only (a pattern stays a session rule).
    const tool = p.invocation.tool;
    if (decision.pattern === undefined && !wholeToolGrantMayAnswer(p.request.reason, tool, askRawCommands))
      continue;
    const source = approvalSource(tool, snapshot);
    if (source === undefined) continue;
    approvals.push({
      tool: tool.name,
      ...(tool.skill ? { skill: tool.skill } : {}),
      source,
      at,
      ...(decision.pattern !== undefined ? { pattern: decision.pattern } : {}),
    });
  }
  return approvals;
}
