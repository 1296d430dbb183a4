import type { History } from '@birdie/runtime/history';

/**
 * What a resumed conversation takes of the context before its next call: the summary of the last compaction plus
 * the messages after it, estimated as the agent estimates them. Without the system prompt and tool definitions
 * (known only when the next call is built), so the next call's figure replaces it; better than the 0 a resume
 * showed before.
 */
export async function threadContextTokens(history: History, modelName: string): Promise<number> {
  const { tokenEstimator } = await import('@birdie/graph');
  const estimate = await tokenEstimator(modelName);
  const last = history.compactions?.at(-1);
  const kept = last ? history.messages.slice(last.messages) : history.messages;
  return (last ? estimate.text(last.summary) : 0) + estimate.messages(kept);
}
