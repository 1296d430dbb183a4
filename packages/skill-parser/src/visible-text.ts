/**
 * Invisible format characters: bidi overrides, embeddings and isolates (U+202A–U+202E, U+2066–U+2069), marks
 * (U+200E/U+200F, U+061C), zero-width characters (U+200B–U+200D, U+2060, U+FEFF), tag characters, and every other
 * character of Unicode's Format category; the line and paragraph separators too (they break a line unseen).
 */
const INVISIBLE = /[\p{Cf}\u2028\u2029]/gu;
const ANY_INVISIBLE = /[\p{Cf}\u2028\u2029]/u;

/**
 * Text the model or a file supplied (a tool's arguments, name or path), as a person deciding about it must see it:
 * each invisible format character written out as `\uXXXX` (per UTF-16 unit), so a U+202E cannot reorder what is shown
 * and a zero-width space cannot hide in it — what is approved reads as what runs (DESIGN §5). Inside JSON the escape
 * means the same character, so escaped JSON still parses to the same value.
 */
export function escapeInvisible(text: string): string {
  if (!ANY_INVISIBLE.test(text)) return text;
  return text.replace(INVISIBLE, (c) =>
    [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}
