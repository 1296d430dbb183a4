import type { ApprovalMode } from '@birdie/graph';
import type { Values } from '../argv.js';
import { formatHistory } from '../history.js';
import type { Io } from '../io.js';
import type { Style } from '../render/style.js';
import { openRuntime, useSession } from '../runtime.js';
import { applySkillFlags, skillFlags } from '../skill-flags.js';
import { printStatus, type ReplState, watchSkills } from './state.js';

/** Loads everything a turn needs; for a resumed session, also prints its last exchanges. */
export async function bootRepl(
  io: Io,
  values: Values,
  options: { approval: ApprovalMode; style: Style; resumeId: string | undefined },
): Promise<ReplState> {
  const rt = await openRuntime(io, values);
  try {
    const flags = skillFlags(rt, values);
    const session = await useSession(rt, options.resumeId);
    applySkillFlags(rt, session, flags);
    const state: ReplState = {
      io,
      style: options.style,
      rt,
      session,
      approval: values.approval === undefined ? rt.config.settings.approval : options.approval,
      toolMode: 'short',
      approvedTools: new Set(),
      contextTokens: 0,
      notices: [],
      startupProblems: [...rt.registry.messages],
    };
    if (options.resumeId) {
      const { style } = options;
      const messages = (await rt.agent.getState(session.id)).messages;
      io.stdout.write(
        `${style('dim', `resuming ${session.id} · ${session.turns} turns · ↑${session.inputTokens} ↓${session.outputTokens} tok`)}\n`,
      );
      const history = formatHistory(messages, style, 3);
      if (history) io.stdout.write(history);
      printStatus(state);
    }
    watchSkills(state);
    return state;
  } catch (error) {
    await rt.close();
    throw error;
  }
}
