import { terminalText } from './terminal-text.js';

export type ToolOutputMode = 'full' | 'short' | 'off';

export const TOOL_OUTPUT_MODES: readonly ToolOutputMode[] = ['full', 'short', 'off'];
/** `short` shows this many lines of a result, each cut to about a screen line: enough to see what it was. */
export const SHORT_LINES = 5;
export const SHORT_LINE_CHARS = 200;

export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** What the user sees of a tool's result in each mode; `null` means print nothing but the summary line. */
export function toolOutputView(output: string, mode: ToolOutputMode): { body: string | null; note: string } {
  const lines = lineCount(output);
  const summary = `${lines} line${lines === 1 ? '' : 's'}`;
  if (mode === 'off') return { body: null, note: summary };
  if (mode !== 'short') return { body: output, note: summary };
  const shown = output.split('\n').slice(0, Math.min(lines, SHORT_LINES));
  const cut = shown.map((line) =>
    line.length > SHORT_LINE_CHARS ? `${line.slice(0, SHORT_LINE_CHARS)}…` : line,
  );
  const rest = lines - shown.length;
  const body = cut.join('\n') + (rest > 0 || output.endsWith('\n') ? '\n' : '');
  return {
    body,
    note: rest > 0 ? `${summary}, … ${rest} more line${rest === 1 ? '' : 's'}` : summary,
  };
}

/** One-line JSON of the arguments, cut so a huge argument does not flood the screen. */
export function formatArgs(args: unknown, max = 200): string {
  let text: string;
  try {
    text = JSON.stringify(args) ?? '';
  } catch {
    text = String(args);
  }
  // JSON escapes C0 controls; an 8-bit one (U+009B starts a sequence too) is dropped.
  const shown = terminalText(text);
  return shown.length > max ? `${shown.slice(0, max)}…` : shown;
}
