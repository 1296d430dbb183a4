import type { Session } from '@birdie/store';

/**
 * The sessions whose title contains `q`, ignoring case and runs of whitespace (all of them without `q`). Sessions
 * are titled from their first prompt, so this finds a session by how it started.
 */
export function matching(sessions: readonly Session[], q: string | undefined): readonly Session[] {
  const needle = fold(q ?? '');
  if (!needle) return sessions;
  return sessions.filter((s) => s.title !== undefined && fold(s.title).includes(needle));
}

const fold = (text: string) => text.normalize('NFKC').toLocaleLowerCase('en').replace(/\s+/g, ' ').trim();
