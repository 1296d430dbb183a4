// `@birdie/store/title`: what a session title may be, once — for the store, and for an API that refuses a bad title
// before it reaches the store (with the same reason).

/** A title is at most this many characters (code points: an emoji is one). */
export const TITLE_MAX_CHARS = 200;

/**
 * Why `title` cannot be a session's title, or undefined when it can: 1-200 characters on one line (a newline would
 * break a list or a log line), no control characters, no lone surrogate, not only blanks.
 */
export function titleProblem(title: unknown): string | undefined {
  if (typeof title !== 'string') return 'a session title is a string';
  // Counted in code points only when the UTF-16 length could be over: most titles are short.
  const chars = title.length > TITLE_MAX_CHARS ? Array.from(title).length : title.length;
  if (chars === 0 || chars > TITLE_MAX_CHARS)
    return `a session title is 1-${TITLE_MAX_CHARS} characters`;
  if (/[\u0000-\u001f\u007f]/.test(title)) return 'a session title is one line without control characters';
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(title))
    return 'a session title is text without a lone surrogate (half of a character)';
  if (title.trim() === '') return 'a session title is not blank';
  return undefined;
}
