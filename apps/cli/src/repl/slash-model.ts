import { TIER_NAMES } from '@birdie/runtime/agent-models';
import { chooseModel } from '@birdie/runtime/session-choices';
import { plural } from '@birdie/terminal/diagnostics';
import { out, type ReplState } from './state.js';

/** `/model`: the model in use and the tiers; `/model TIER | vendor:model` switches from the next turn. */
export async function model(state: ReplState, rest: string[]): Promise<undefined> {
  const { rt, style } = state;
  const spec = rest[0];
  const tiers = rt.provider.tiers;
  if (spec === undefined) {
    const defined = tiers.length
      ? `tiers: ${TIER_NAMES.filter((t) => t === 'default' || tiers.includes(t)).join(', ')}`
      : 'no tiers configured (provider.models)';
    return out(
      state,
      `model: ${state.modelName}${state.model ? ` (chosen with /model ${state.model})` : ''} · ${defined}\n${style('dim', '/model TIER or /model vendor:model switches from the next turn')}`,
    );
  }
  const chosen = await chooseModel(rt, spec);
  if ('problem' in chosen) return out(state, chosen.problem);
  state.model = spec;
  state.modelName = chosen.name;
  state.contextWindow = 0;
  return out(state, `${style('green', '✓')} model: ${chosen.name} from the next turn`);
}

/** `/compact [instructions]`: summarise all but the last exchange now (`sessions show --full` still shows them). */
export async function compact(state: ReplState, instructions: string): Promise<undefined> {
  const { rt, style, session } = state;
  const { compactSession } = await import('@birdie/runtime/session-compact');
  const result = await compactSession(rt, session.id, {
    waitMs: state.waitMs,
    instructions,
    ...(state.model ? { model: state.model } : {}),
  });
  if (!result) return out(state, 'Nothing to compact yet: the conversation is one exchange or less.');
  if (!result.applied)
    return out(
      state,
      `Not compacted: the conversation is ${result.tokensBefore} tok as it is and would be ${result.tokensAfter} tok with a summary (by ${result.usage.model}), so it is sent as it is.`,
    );
  // What the next call is sent, as far as the conversation goes.
  state.contextTokens = result.tokensAfter;
  return out(
    state,
    `${style('green', '✓')} compacted ${plural(result.messages, 'message')} into a summary (${result.tokensBefore} → ${result.tokensAfter} tok, by ${result.usage.model}); birdie sessions show --full ${session.id} still shows them all`,
  );
}
