import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { interrupt, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { type ApprovalInterrupt, describeCall } from './approvals.js';
import { newId } from './ids.js';
import { callSignature, MAX_REPEATS, previousRepeats } from './loop-guard.js';
import { capOutput } from './output-cap.js';
import type { ExecContext, RuntimeTool } from './runtime-tool.js';
import { describeEntrypointError } from './skill-tool.js';
import type { AgentStateUpdate, AgentStateValue } from './state.js';
import type { ToolsetBuilder } from './toolset.js';
import { emit, turnContext } from './turn-context.js';
import type { AgentPolicy, ApprovalDecision, ApprovalRequest } from './types.js';

export interface ToolsNodeSettings {
  maxToolOutputChars: number;
  contextMessages: number;
}

type Planned =
  | {
      kind: 'refuse';
      id: string;
      name: string;
      args: Record<string, unknown>;
      message: string;
      tool?: RuntimeTool;
    }
  | {
      kind: 'run';
      id: string;
      name: string;
      args: Record<string, unknown>;
      tool: RuntimeTool;
      request?: ApprovalRequest;
    };

function errorText(error: unknown): string {
  return describeEntrypointError(error);
}

/**
 * Executes the last AIMessage's tool calls. Everything is checked again here, at execution — the allowed set is
 * recomputed from the policy, so a tool hidden from the model is also refused if the model calls it anyway.
 * Calls that need approval are put to the user through `interrupt()` before *any* call of the batch runs.
 */
export function createToolsNode(builder: ToolsetBuilder, policy: AgentPolicy, settings: ToolsNodeSettings) {
  return async (state: AgentStateValue, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    const context = turnContext(config);
    const aiIndex = state.messages.length - 1;
    const ai = state.messages[aiIndex];
    if (!ai || !AIMessage.isInstance(ai)) return {};
    const toolset = await builder.build(context.threadId, context.snapshot);
    const available = [...toolset.byName.keys()].join(', ') || '(none)';

    const plan: Planned[] = [];
    for (const bad of ai.invalid_tool_calls ?? []) {
      plan.push({
        kind: 'refuse',
        id: bad.id ?? newId('call'),
        name: bad.name ?? 'unknown',
        args: {},
        message: `Error: the arguments of this call were not valid JSON (${bad.error ?? 'parse error'}). Send a JSON object.`,
      });
    }
    for (const call of ai.tool_calls ?? []) {
      const id = call.id ?? newId('call');
      const args = (call.args ?? {}) as Record<string, unknown>;
      const tool = toolset.byName.get(call.name);
      const skillTool = context.snapshot.getTool(call.name);
      if (
        !tool ||
        (tool.kind === 'skill' &&
          skillTool &&
          !policy.isToolAllowed(context.threadId, call.name, context.snapshot))
      ) {
        plan.push({
          kind: 'refuse',
          id,
          name: call.name,
          args,
          message: `Error: tool "${call.name}" is not available in this session (disabled or unknown). Available tools: ${available}.`,
        });
        continue;
      }
      if (previousRepeats(state.messages, aiIndex, callSignature(call.name, args)) >= MAX_REPEATS) {
        plan.push({
          kind: 'refuse',
          id,
          name: call.name,
          args,
          tool,
          message: `Refused: this exact call (same tool, same arguments) was already made in ${MAX_REPEATS} consecutive turns. Its result will not change; use it, or try something different.`,
        });
        continue;
      }
      const prepared = tool.prepare(args);
      if (!prepared.ok) {
        plan.push({ kind: 'refuse', id, name: call.name, args, tool, message: prepared.error });
        continue;
      }
      const reason = tool.approvalReason(context.approval);
      const request = reason
        ? {
            id,
            tool: tool.name,
            ...(tool.skill ? { skill: tool.skill } : {}),
            args: prepared.args,
            description: describeCall(tool, prepared.args, reason),
            reason,
          }
        : undefined;
      plan.push({
        kind: 'run',
        id,
        name: call.name,
        args: prepared.args,
        tool,
        ...(request ? { request } : {}),
      });
    }

    // Decisions handed to `resume` apply by call id even if the resuming turn's mode would not ask: a call the user
    // rejected stays rejected. Only calls without a decision are put to the user.
    const given = context.decisions;
    const requests = plan.flatMap((p) =>
      p.kind === 'run' && p.request && !Object.hasOwn(given, p.id) ? [p.request] : [],
    );
    // Nothing has run yet: on resume this node starts again from the top and `interrupt` returns the decisions.
    const asked: Record<string, ApprovalDecision> =
      requests.length > 0
        ? interrupt<ApprovalInterrupt, Record<string, ApprovalDecision>>({
            kind: 'birdie/approval',
            requests,
          })
        : {};
    const decisions: Record<string, ApprovalDecision> = { ...given, ...asked };

    const exec: ExecContext = {
      cwd: context.cwd,
      threadId: context.threadId,
      env: context.toolEnv,
      messages: state.messages,
      loadedSkills: state.loadedSkills,
      contextMessages: settings.contextMessages,
      ...(context.signal ? { signal: context.signal } : {}),
    };
    const loaded: string[] = [];

    const runOne = async (p: Planned): Promise<ToolMessage> => {
      const started = Date.now();
      emit(config, {
        type: 'tool-start',
        id: p.id,
        name: p.name,
        ...(p.tool?.skill ? { skill: p.tool.skill } : {}),
        args: p.args,
      });
      let ok = false;
      let content: string;
      if (p.kind === 'refuse') content = p.message;
      else {
        const decision: ApprovalDecision | undefined = Object.hasOwn(decisions, p.id)
          ? decisions[p.id]
          : p.request
            ? { type: 'reject', message: 'No decision was given.' }
            : undefined;
        let args = p.args;
        let note = '';
        if (decision?.type === 'reject') {
          content = `The user rejected this call; it did not run.${decision.message ? ` Their message: ${decision.message}` : ''}`;
        } else {
          let refused: string | undefined;
          if (decision?.type === 'edit') {
            const prepared = p.tool.prepare(decision.args);
            if (prepared.ok) {
              args = prepared.args;
              note = `[The user edited the arguments to ${JSON.stringify(args)}]\n`;
            } else
              refused = `The user's edited arguments were invalid; the call did not run.\n${prepared.error}`;
          }
          if (refused !== undefined) content = refused;
          else {
            try {
              const outcome = await p.tool.execute(args, exec);
              content = note + outcome.content;
              ok = true;
              if (outcome.loaded) loaded.push(...outcome.loaded);
            } catch (error) {
              content = note + errorText(error);
            }
          }
        }
      }
      const capped = p.tool?.ownLimit
        ? { text: content, truncated: false }
        : capOutput(content, settings.maxToolOutputChars);
      emit(config, {
        type: 'tool-end',
        id: p.id,
        name: p.name,
        ok,
        output: capped.text,
        truncated: capped.truncated,
        durationMs: Date.now() - started,
      });
      return new ToolMessage({
        id: newId('tool'),
        tool_call_id: p.id,
        name: p.name,
        content: capped.text,
        status: ok ? 'success' : 'error',
      });
    };

    // Independent calls of one model turn run side by side; results keep the calls' order.
    const messages = await Promise.all(plan.map(runOne));
    return loaded.length > 0 ? { messages, loadedSkills: loaded } : { messages };
  };
}
