/** Cuts text to `max` characters with a visible note of what was dropped, so the model knows it saw a part. */
export function capOutput(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return {
    text: `${text.slice(0, max)}\n[truncated: ${text.length - max} more characters]`,
    truncated: true,
  };
}
