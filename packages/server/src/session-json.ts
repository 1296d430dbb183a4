import type { Session } from '@birdie/store';

/** A session as the API shows it (the user is the caller). */
export function sessionJson(s: Session) {
  return {
    id: s.id,
    ...(s.title !== undefined ? { title: s.title } : {}),
    ...(s.agent !== undefined ? { agent: s.agent } : {}),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    turns: s.turns,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
  };
}
