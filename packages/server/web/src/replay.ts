import type { Message, TurnEvent } from './types.js';

// A reopened chat (a reload, another device) shows the session's history, then replays its newest API turn's recorded
// events where the history cannot say how that turn went: a turn that runs, or one that stopped without its end saved
// (its worker died, the model failed). Other front ends (the CLI) write the same session without an API turn, so the
// newest API turn may be older than the history's last prompt: it is replayed only when it is that prompt's turn.

/** Whether the history stops inside a turn: on a prompt, or on tool steps, with no answer after them. */
export function unfinished(history: Message[]): boolean {
  const last = history.at(-1);
  if (!last) return false;
  return last.role === 'human' || last.role === 'tool' || (last.role === 'ai' && !!last.tool_calls?.length);
}

/**
 * Whether a replayed turn (its events from the first, as far as they came) is the turn of the history's last prompt:
 * `true`, `false` (it is older: the history went on after it), or `undefined` while its events do not say yet.
 *
 * What links a turn to the history is first its own prompt: its `session` event names it (turns recorded before it
 * did, and an approval's continuation, do not). A turn whose prompt is an earlier one of the history, not the last,
 * is older: the last prompt is another client's, even when nothing was saved after it (a CLI prompt never answered).
 * Then the ids of the messages it saved: its `message` events carry them, and the history has them where they were
 * saved (before or after its last prompt). A message the history does not have (not saved yet, or compacted away)
 * says nothing. A turn that ended without saving anything the history has is the last prompt's unless something with
 * an id follows that prompt: that was saved by another turn.
 */
export function replayBelongs(history: Message[], events: TurnEvent[], ended: boolean): boolean | undefined {
  let prompt = -1;
  for (let i = history.length - 1; i >= 0 && prompt < 0; i--) if (history[i]!.role === 'human') prompt = i;
  if (prompt < 0) return true;
  const asked = askedBy(events);
  if (
    asked !== undefined &&
    history[prompt]!.content !== asked &&
    history.slice(0, prompt).some((m) => m.role === 'human' && m.content === asked)
  )
    return false;
  const at = new Map<string, number>();
  history.forEach((m, i) => {
    if (m.id !== undefined) at.set(m.id, i);
  });
  for (const event of events) {
    if (event.type !== 'message' || event.message.id === undefined) continue;
    const i = at.get(event.message.id);
    if (i !== undefined) return i > prompt;
  }
  if (!ended) return undefined;
  if (events.length === 0) return false;
  return !history.slice(prompt + 1).some((m) => m.id !== undefined);
}

/** The prompt that started a replayed turn, as its `session` event recorded it (none in older records). */
function askedBy(events: TurnEvent[]): string | undefined {
  const started = events.find((e) => e.type === 'session');
  return started?.type === 'session' ? started.prompt : undefined;
}
