/**
 * Cuts text to `max` characters with a visible note of what was dropped, so the model knows it saw a part (and can
 * decide to ask for a narrower one). `cut`: the text is already a cut of a longer output (the entrypoint stopped
 * keeping it at its own cap); its dropped bytes are added to the count (about: a byte is not always a character), or,
 * when it did not count them, the count is given as a minimum.
 */
export function capOutput(
  text: string,
  max: number,
  cut?: { droppedBytes?: number },
): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const more = text.length - max;
  const note = !cut
    ? `${more} more characters`
    : cut.droppedBytes !== undefined
      ? `about ${more + cut.droppedBytes} more characters`
      : `at least ${more} more characters`;
  return { text: `${text.slice(0, max)}\n[truncated: ${note}]`, truncated: true };
}
