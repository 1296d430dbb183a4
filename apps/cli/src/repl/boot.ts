import type { ApprovalMode } from '@birdie/graph';
import { agentGapLine } from '@birdie/runtime/agent-gaps';
import { openRuntime, waitMs } from '@birdie/runtime/runtime';
import { sessionFromFlags } from '@birdie/runtime/session-from-flags';
import type { Values } from '../argv.js';
import type { Io } from '../io.js';
import { withBundledLayer } from '../paths.js';
import { plural } from '@birdie/terminal/diagnostics';
import type { Style } from '@birdie/terminal/style';
import { showRecent } from './history-view.js';
import { printStatus, type ReplState, watchSkills } from './state.js';

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
      const resuming = `resuming ${session.id} · ${plural(session.turns, 'turn')} · ↑${session.inputTokens} ↓${session.outputTokens} tok`;
      await showRecent(state, options.style('dim', resuming));
      await printStatus(state);
    }
    watchSkills(state);
    return state;
  } catch (error) {
    await rt.close();
    throw error;
  }
}
