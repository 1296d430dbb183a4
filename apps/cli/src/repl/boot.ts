import type { ApprovalMode } from '@birdie/graph';
import { agentGapLine } from '@birdie/runtime/agent-gaps';
import { historyOf } from '@birdie/runtime/history';
import { openRuntime, waitMs } from '@birdie/runtime/runtime';
import { sessionFromFlags } from '@birdie/runtime/session-from-flags';
import { storeFailureText } from '@birdie/runtime/store-failure';
import type { Values } from '../argv.js';
import type { Io } from '../io.js';
import { withBundledLayer } from '../paths.js';
import { plural } from '../render/diagnostics.js';
import type { Style } from '../render/style.js';
import { formatReplHistory } from './history-view.js';
import { printStatus, type ReplState, watchSkills } from './state.js';
import { threadContextTokens } from './thread-context.js';

/** Loads everything a turn needs; for a resumed session, also prints its last exchanges. */
export async function bootRepl(
  io: Io,
  values: Values,
  options: { approval: ApprovalMode; style: Style; resumeId: string | undefined },
): Promise<ReplState> {
  const rt = await openRuntime(withBundledLayer(io), values);
  try {
    // Warnings about the settings wait for the prompt to be done with, like the other start-up notes.
    const warnings: string[] = [];
    const { session, agent, staleGrants, gaps, lastAgent } = await sessionFromFlags(
      rt,
      values,
      options.resumeId,
      { warn: (line) => warnings.push(`birdie: ${line}`) },
    );
    const state: ReplState = {
      io,
      style: options.style,
      rt,
      session,
      approval: values.approval === undefined ? rt.config.settings.approval : options.approval,
      waitMs: waitMs(values, 5),
      toolMode: rt.config.settings.tool_output,
      contextTokens: 0,
      contextWindow: 0,
      modelName: rt.modelName,
      notices: [...warnings, ...staleGrants],
      startupProblems: [...rt.registry.messages],
      trustPutOff: new Set(),
      ...(agent !== undefined ? { nextAgent: agent, agentName: agent } : {}),
    };
    if (gaps) state.notices.push(`birdie: ${agentGapLine(gaps, 'slash')}`);
    // A resumed session goes on with whoever spoke last, unless --agent names another.
    if (lastAgent) state.agentName = lastAgent;
    if (options.resumeId) {
      const { style } = options;
      const { messages, damage, compactions } = await historyOf(rt.agent, session.id);
      if (damage)
        io.stdout.write(`${style('red', 'birdie:')} ${storeFailureText(damage, session.id, 'repl')}\n`);
      io.stdout.write(
        `${style('dim', `resuming ${session.id} · ${plural(session.turns, 'turn')} · ↑${session.inputTokens} ↓${session.outputTokens} tok`)}\n`,
      );
      const history = await formatReplHistory(io, style, messages, 3);
      if (history) io.stdout.write(history);
      state.contextTokens = await threadContextTokens(
        { messages, ...(compactions ? { compactions } : {}) },
        state.modelName,
      ).catch(() => 0);
      await printStatus(state);
    }
    watchSkills(state);
    return state;
  } catch (error) {
    await rt.close();
    throw error;
  }
}
