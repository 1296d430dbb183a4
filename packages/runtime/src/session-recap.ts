import { type History, historyOf } from './history.js';
import type { Runtime } from './runtime.js';

/**
 * What a resumed conversation takes of the context before its next call: the summary of the last compaction plus
 * the messages after it, estimated as the agent estimates them for `modelName`. Without the system prompt and tool
 * definitions (known only when the next call is built), so the next call's figure replaces it.
 */
export async function historyTokens(history: History, modelName: string): Promise<number> {
  const { tokenEstimator } = await import('@birdie/graph');
  const estimate = await tokenEstimator(modelName);
  const last = history.compactions?.at(-1);
  const kept = last ? history.messages.slice(last.messages) : history.messages;
  return (last ? estimate.text(last.summary) : 0) + estimate.messages(kept);
}

/**
 * A session as a front end shows it on resuming or switching to it: its history (with any damage found reading it)
 * and the context it takes (`historyTokens`; 0 when it cannot be estimated).
 */
export async function sessionRecap(
  rt: Runtime,
  sessionId: string,
  modelName: string,
): Promise<History & { contextTokens: number }> {
  const history = await historyOf(rt.agent, sessionId);
  const contextTokens = await historyTokens(history, modelName).catch(() => 0);
  return { ...history, contextTokens };
}
