import { type History, historyOf } from '@birdie/runtime/history';
import type { BaseMessage } from '@langchain/core/messages';
import type { Io } from '../io.js';
import { formatHistory } from '../render/history.js';
import type { Style } from '../render/style.js';
import { loadMarkdown, rendersMarkdown } from './answer-markdown.js';
import type { ReplState } from './state.js';

export async function readHistoryOf(state: ReplState): Promise<History> {
  return historyOf(state.rt.agent, state.session.id);
}

/**
 * The last `limit` exchanges of a session as the REPL shows them when it resumes or switches: past answers are
 * rendered as Markdown like new ones (in a terminal with colors; the renderer loads only if there is an answer).
 */
export async function formatReplHistory(
  io: Io,
  style: Style,
  messages: BaseMessage[],
  limit: number,
): Promise<string> {
  const answers = messages.some((m) => m.getType() === 'ai' && m.text);
  if (!answers || !rendersMarkdown(io)) return formatHistory(messages, style, limit);
  const { renderMarkdown } = await loadMarkdown();
  const width = (io.stdout as { columns?: number }).columns || 80;
  return formatHistory(messages, style, limit, undefined, undefined, (text) =>
    renderMarkdown(text, { style, width }).trimEnd(),
  );
}
