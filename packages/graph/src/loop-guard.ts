import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { stableStringify } from './ids.js';

export const MAX_REPEATS = 3;

export function callSignature(name: string, args: unknown): string {
  return `${name}\u0000${stableStringify(args ?? {})}`;
}

/**
 * How many model turns in a row, right before `aiIndex`, made this exact call (same name, same arguments). The
 * count stops at the user's last message: a new request may legitimately repeat an old call.
 */
export function previousRepeats(
  messages: readonly BaseMessage[],
  aiIndex: number,
  signature: string,
): number {
  let streak = 0;
  for (let i = aiIndex - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (HumanMessage.isInstance(m)) break;
    if (!AIMessage.isInstance(m)) continue;
    if ((m.tool_calls ?? []).some((c) => callSignature(c.name, c.args) === signature)) streak += 1;
    else break;
  }
  return streak;
}
