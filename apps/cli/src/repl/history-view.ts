import { sessionRecap } from '@birdie/runtime/session-recap';
import { storeFailureText } from '@birdie/runtime/store-failure';
import type { BaseMessage } from '@langchain/core/messages';
import type { Io } from '../io.js';
import { formatHistory } from '@birdie/terminal/history';
import type { Style } from '@birdie/terminal/style';
import { loadMarkdown, rendersMarkdown } from './answer-markdown.js';
import { out, type ReplState } from './state.js';

/**
 * What the REPL shows of the current session when it resumes or switches to it: damage found reading it, `heading`,
 * its last three exchanges; and its context count.
 */
export async function showRecent(state: ReplState, heading?: string): Promise<void> {
  const { style } = state;
  const recap = await sessionRecap(state.rt, state.session.id, state.modelName);
  if (recap.damage)
    out(state, `${style('red', 'birdie:')} ${storeFailureText(recap.damage, state.session.id, 'repl')}`);
  if (heading) out(state, heading);
  const history = await formatReplHistory(state.io, style, recap.messages, 3);
  if (history) out(state, history);
  state.contextTokens = recap.contextTokens;
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
