// `@birdie/store/title`: what a session title may be, once — for the store, and for an API that refuses a bad title
// before it reaches the store (with the same reason).

/** A title is at most this many characters. */
export const TITLE_MAX_CHARS = 200;

/**
 * Why `title` cannot be a session's title, or undefined when it can: 1-200 characters on one line (a newline would
 * break a list or a log line), no control characters, not only blanks.
 */
export function titleProblem(title: unknown): string | undefined {
  if (typeof title !== 'string') return 'a session title is a string';
  if (title.length === 0 || title.length > TITLE_MAX_CHARS)
    return `a session title is 1-${TITLE_MAX_CHARS} characters`;
  if (/[\u0000-\u001f\u007f]/.test(title)) return 'a session title is one line without control characters';
  if (title.trim() === '') return 'a session title is not blank';
  return undefined;
}
