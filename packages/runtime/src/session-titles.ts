import type { Session } from '@birdie/store';
import type { Runtime } from './runtime.js';
import { grantsGivenByUser } from './starting-grants.js';

/** Titles are one line of at most this many characters. */
export const TITLE_CHARS = 60;

/**
 * One line of at most `max` characters, counted and cut in code points (never inside a UTF-16 surrogate pair; a
 * sequence of several code points, such as a flag, may still be cut): whitespace runs become one space, a lone
 * surrogate becomes U+FFFD (no store keeps one), a longer text ends with `…`.
 */
export function oneLine(text: string, max = TITLE_CHARS): string {
  const line = text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/\s+/g, ' ')
    .trim();
  if (line.length <= max) return line;
  const chars = Array.from(line);
  return chars.length > max
    ? `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`
    : line;
}

const TITLE_INSTRUCTIONS =
  'Write a title for a conversation that starts with the request below: at most six words, no quotes, no full stop. Answer with the title only.';

/** A short model-made title for the first prompt (the `fast` tier when the config has one); undefined when it fails. */
async function modelTitle(rt: Runtime, prompt: string): Promise<string | undefined> {
  try {
    const { model } = await rt.titleModel();
    const { HumanMessage, SystemMessage } = await import('@langchain/core/messages');
    const reply = await model.invoke([
      new SystemMessage(TITLE_INSTRUCTIONS),
      new HumanMessage(oneLine(prompt, 2000)),
    ]);
    const title = oneLine(reply.text.replace(/^["'`]+|["'`.]+$/g, ''));
    return title || undefined;
  } catch {
    return undefined;
  }
}

/**
 * After a turn: a session without a title gets one once it has an exchange — the first prompt on one line, or with
 * `titles: model` a short model-made title (the prompt's line when the model fails). Returns the title set, if any.
 * `answered`: the turn saw its model answer and ended without failing, so the session has an exchange; its state is
 * read only otherwise (decoding it cost every new session's first turn 0.3–0.7 ms of CPU).
 */
export async function titleAfterTurn(
  rt: Runtime,
  session: Session,
  prompt: string,
  answered = false,
): Promise<string | undefined> {
  // As the session's own user: under `birdie serve` that is the caller's, not the worker's.
  const current = await rt.store.sessions.get(session.id, session.userId);
  if (!current || current.title !== undefined) return undefined;
  if (!answered && !(await hasExchange(rt, session.id))) return undefined;
  const title =
    (rt.config.settings.titles === 'model' ? await modelTitle(rt, prompt) : undefined) ?? oneLine(prompt);
  if (!title) return undefined;
  await rt.store.sessions.rename(session.id, session.userId, title);
  session.title = title;
  return title;
}

/** Whether the session's conversation has an answer of the model (a failed first call leaves none). */
export async function hasExchange(rt: Runtime, sessionId: string): Promise<boolean> {
  const state = await rt.agent.getState(sessionId, { recent: true }).catch(() => undefined);
  // Messages archived by a compaction (`earlier`) were a conversation already.
  return (state?.earlier ?? 0) > 0 || (state?.messages.some((m) => m.type === 'ai') ?? false);
}

/**
 * A session with no exchange (an empty `/new`, a first call that failed) is not kept: removed with its folder,
 * unless the user gave it skill grants (the ones it started with, from the settings and flags, are not theirs to
 * lose). Returns whether it was removed. A store that cannot be written keeps it.
 */
export async function discardIfEmpty(rt: Runtime, session: Session): Promise<boolean> {
  if (rt.store.readOnly) return false;
  if (grantsGivenByUser(session, rt.policy.grants(session.id))) return false;
  if (await hasExchange(rt, session.id)) return false;
  try {
    await rt.store.sessions.delete(session.id, session.userId);
    const { removeSessionDir } = await import('./session-dir.js');
    await removeSessionDir(rt.io.env, session.id);
    return true;
  } catch {
    return false;
  }
}
