import type { OutputChunk } from '@birdie/entrypoints';
import { ToolMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { CallsInProgress } from './cancelled-calls.js';
import { newId } from './ids.js';
import type { RuleDecision } from './rule-set.js';
import { describeRule } from './rule-set.js';
import type { DeclaredTool, ToolInvocation, ToolResult, ToolRunContext } from './tool.js';
import type { DecisionBook } from './tool-confirm.js';
import { toolImagesArtifact } from './tool-images.js';
import { LiveOutput } from './tool-live-output.js';
import type { PlannedCall } from './tool-plan.js';
import { emit } from './turn-context.js';
import type { ApprovalDecision, ToolJournal } from './types.js';

export interface ExecuteInput {
  plan: readonly PlannedCall[];
  decisions: DecisionBook;
  context: ToolRunContext;
  journal: ToolJournal | undefined;
  config: LangGraphRunnableConfig;
  /** The turn's record of calls while they run: a cancelled turn answers them from it. */
  inProgress?: CallsInProgress;
  /**
   * The deny rule in force that refuses these arguments, if one does: a call the user answered with edited
   * arguments is checked again, since the rules were applied to the model's arguments when the call was planned.
   */
  deniedBy?: (tool: DeclaredTool, args: Record<string, unknown>) => RuleDecision | undefined;
}

/**
 * Step 3 of the tools node: runs the approved calls side by side (results keep the calls' order) and answers the
 * refused and rejected ones. A call is recorded in the journal before it starts; a call whose start cannot be
 * recorded does not run, so no effect ever lands without its record.
 */
export async function executeCalls(input: ExecuteInput): Promise<{
  messages: ToolMessage[];
  loaded: string[];
  /** Tool names `find_tools` returned in this step. */
  found: string[];
  /** The agent a `handoff` call moved the conversation to. */
  handoff?: string;
  /** Ids of `task` calls whose subagent waits for approvals: no result yet. */
  suspended: string[];
}> {
  const loaded: string[] = [];
  const found: string[] = [];
  const suspended: string[] = [];
  let handoff: string | undefined;
  const answer = (
    p: PlannedCall,
    result: Omit<ToolResult, 'truncated'> & { truncated?: boolean },
    ms: number,
    outcome?: 'rejected' | 'refused',
  ) => {
    emit(input.config, {
      type: 'tool-end',
      id: p.id,
      name: p.name,
      ok: result.ok,
      ...(outcome ? { outcome } : {}),
      output: result.content,
      truncated: result.truncated ?? false,
      durationMs: ms,
    });
    return new ToolMessage({
      id: newId('tool'),
      tool_call_id: p.id,
      name: p.name,
      content: result.content,
      status: result.ok ? 'success' : 'error',
      // Kept with the message, sent only to models that can see images (tool-images.ts).
      ...(result.images?.length ? { artifact: toolImagesArtifact(result.images) } : {}),
    });
  };

  const one = async (p: PlannedCall): Promise<ToolMessage | undefined> => {
    if (p.rule) {
      const { rule } = p.rule;
      emit(input.config, {
        type: 'tool-rule',
        id: p.id,
        name: p.name,
        effect: p.kind === 'refuse' ? 'deny' : p.rule.effect,
        pattern: rule.pattern,
        source: { ...rule.source },
      });
    }
    if (p.kind === 'refuse') return answer(p, { ok: false, content: p.message }, 0, 'refused');
    const decision: ApprovalDecision | undefined =
      input.decisions.get({ id: p.id, digest: p.invocation.digest }) ??
      (p.request ? { type: 'reject', message: 'No decision was given.', unasked: true } : undefined);
    if (decision?.type === 'reject' && decision.unasked) {
      const why = decision.message ? ` ${decision.message}` : '';
      return answer(
        p,
        { ok: false, content: `This call needs approval and nobody was asked; it did not run.${why}` },
        0,
        'refused',
      );
    }
    if (decision?.type === 'reject') {
      const message = decision.message ? ` Their message: ${decision.message}` : '';
      return answer(
        p,
        { ok: false, content: `The user rejected this call; it did not run.${message}` },
        0,
        'rejected',
      );
    }
    if (p.granted) {
      const tool = p.invocation.tool;
      emit(input.config, {
        type: 'tool-approved',
        id: p.id,
        name: tool.name,
        ...(tool.skill ? { skill: tool.skill } : {}),
        scope: 'session',
      });
    }
    let invocation: ToolInvocation = p.invocation;
    let note = '';
    if (decision?.type === 'edit') {
      const built = p.invocation.tool.build(decision.args);
      if (!built.ok) {
        return answer(
          p,
          {
            ok: false,
            content: `The user's edited arguments were invalid; the call did not run.\n${built.error}`,
          },
          0,
          'refused',
        );
      }
      invocation = built.invocation;
      const denied = input.deniedBy?.(p.invocation.tool, invocation.args);
      if (denied) {
        emit(input.config, {
          type: 'tool-rule',
          id: p.id,
          name: p.name,
          effect: 'deny',
          pattern: denied.rule.pattern,
          source: { ...denied.rule.source },
        });
        return answer(
          p,
          {
            ok: false,
            content: `The user's edited arguments are refused by the ${describeRule(denied.rule)}: the call did not run.`,
          },
          0,
          'refused',
        );
      }
      note = `[The user edited the arguments to ${JSON.stringify(invocation.args)}]\n`;
    }
    return run(p, invocation, note);
  };

  const run = async (
    p: PlannedCall,
    invocation: ToolInvocation,
    note: string,
  ): Promise<ToolMessage | undefined> => {
    const tool = invocation.tool;
    const call = { id: p.id, name: tool.name, ...(tool.skill ? { skill: tool.skill } : {}) };
    try {
      await input.journal?.started(call);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return answer(
        p,
        {
          ok: false,
          content: `Error (journal): the call did not run: its start could not be recorded (${reason}).`,
        },
        0,
      );
    }
    emit(input.config, { type: 'tool-start', ...call, args: { ...invocation.args } });
    const started = Date.now();
    // The output so far, while the call runs: throttled and bounded, and always before the call's tool-end.
    const live = new LiveOutput((stream, text) =>
      emit(input.config, { type: 'tool-output', id: p.id, name: tool.name, stream, text }),
    );
    const inProgress = input.inProgress;
    inProgress?.started(p.id, tool.name);
    const onOutput = inProgress
      ? (chunk: OutputChunk) => {
          inProgress.output(p.id, chunk);
          live.push(chunk);
        }
      : live.push;
    try {
      return await ranCall(p, invocation, note, onOutput, live, started);
    } finally {
      // Returned, its end journaled (or thrown): a stop waiting for the call's end goes on (`CallsInProgress.stopped`).
      inProgress?.ended(p.id);
    }
  };

  const ranCall = async (
    p: PlannedCall,
    invocation: ToolInvocation,
    note: string,
    onOutput: (chunk: OutputChunk) => void,
    live: LiveOutput,
    started: number,
  ): Promise<ToolMessage | undefined> => {
    const inProgress = input.inProgress;
    let result: ToolResult;
    try {
      result = await invocation.run({ ...input.context, callId: p.id, onOutput });
    } finally {
      live.close();
    }
    const durationMs = Date.now() - started;
    if (result.suspended) {
      // Its subagent asks the user first; the call ends (and is journaled as ended) once the subagent has finished.
      suspended.push(p.id);
      return undefined;
    }
    if (result.loaded) loaded.push(...result.loaded);
    if (result.found) found.push(...result.found);
    if (result.handoff && result.ok) handoff = result.handoff;
    // A failure to record the end must not hide the result the model is owed; the call already happened.
    await Promise.resolve(
      input.journal?.finished({
        id: p.id,
        ok: result.ok,
        durationMs,
        truncated: result.truncated,
        ...(result.ok ? {} : { error: result.content.slice(0, 500) }),
      }),
    ).catch(() => undefined);
    const message = answer(p, { ...result, content: note + result.content }, durationMs);
    inProgress?.answered(p.id, message, result.ok);
    return message;
  };

  const messages = (await Promise.all(input.plan.map(one))).filter((m): m is ToolMessage => m !== undefined);
  return { messages, loaded, found, suspended, ...(handoff ? { handoff } : {}) };
}
