export type ToolOutputMode = 'full' | 'short' | 'off';

export const TOOL_OUTPUT_MODES: readonly ToolOutputMode[] = ['full', 'short', 'off'];
export const SHORT_LIMIT = 1000;

export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** What the user sees of a tool's result in each mode; `null` means print nothing but the summary line. */
export function toolOutputView(output: string, mode: ToolOutputMode): { body: string | null; note: string } {
  const lines = lineCount(output);
  const summary = `${lines} line${lines === 1 ? '' : 's'}`;
  if (mode === 'off') return { body: null, note: summary };
  if (mode === 'short' && output.length > SHORT_LIMIT) {
    const rest = output.length - SHORT_LIMIT;
    return {
      body: output.slice(0, SHORT_LIMIT),
      note: `${summary}, … ${rest} more character${rest === 1 ? '' : 's'}`,
    };
  }
  return { body: output, note: summary };
}

/** One-line JSON of the arguments, cut so a huge argument does not flood the screen. */
export function formatArgs(args: unknown, max = 200): string {
  let text: string;
  try {
    text = JSON.stringify(args) ?? '';
  } catch {
    text = String(args);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
