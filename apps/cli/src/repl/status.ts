import { fitWidth } from '@birdie/terminal/live-lines';
import type { Style } from '@birdie/terminal/style';
import { textWidth } from '@birdie/terminal/text-width';

export interface StatusInput {
  /** The agent answering, when one is named. */
  agent?: string;
  vendor: string;
  model: string;
  sessionId: string;
  contextTokens: number;
  /** The input limit of the model in use (0: not known yet). */
  contextWindow: number;
  inputTokens: number;
  outputTokens: number;
}

const BAR = ' │ ';

/** One part of the line: its full and its short form; `drop` orders which part goes first when neither fits. */
interface Part {
  full: string;
  short: string;
  drop: number;
}

/**
 * `[agent: NAME │ ]vendor · model │ session: ID │ ctx: N tok[ (P%)] │ spent: ↑IN ↓OUT tok` — P: share of the window.
 * In `columns` (a terminal's width) it stays one row, which a status line printed under every answer has to be, or
 * the terminal breaks it mid-number: the labels go first, then the session, the tokens spent, the agent and the context
 * (what tells the user to compact, so kept while the line has room for two parts), and the model is cut last.
 */
export function statusLine(s: StatusInput, style: Style, columns = Number.POSITIVE_INFINITY): string {
  const percent = s.contextWindow > 0 ? ` (${Math.round((100 * s.contextTokens) / s.contextWindow)}%)` : '';
  const parts: Part[] = [
    ...(s.agent ? [{ full: `agent: ${s.agent}`, short: s.agent, drop: 3 }] : []),
    { full: `${s.vendor} · ${s.model}`, short: `${s.vendor} · ${s.model}`, drop: 5 },
    { full: `session: ${s.sessionId}`, short: s.sessionId, drop: 1 },
    { full: `ctx: ${s.contextTokens} tok${percent}`, short: `ctx ${s.contextTokens}${percent}`, drop: 4 },
    {
      full: `spent: ↑${s.inputTokens} ↓${s.outputTokens} tok`,
      short: `↑${s.inputTokens} ↓${s.outputTokens}`,
      drop: 2,
    },
  ];
  // A line that fills the last column makes some terminals wrap before the next one: one column is left free.
  const width = columns - 1;
  const texts = (shown: Part[], short: boolean) => shown.map((p) => (short ? p.short : p.full));
  let shown = texts(parts, false);
  if (textWidth(shown.join(BAR)) > width) {
    let kept = parts;
    shown = texts(kept, true);
    while (textWidth(shown.join(BAR)) > width && kept.length > 1) {
      const first = Math.min(...kept.map((p) => p.drop));
      kept = kept.filter((p) => p.drop !== first);
      shown = texts(kept, true);
    }
    // The model alone and still too wide: cut, marked with an ellipsis.
    if (textWidth(shown.join(BAR)) > width) shown = [fitWidth(shown.join(BAR), Math.max(1, width))];
  }
  return style('dim', shown.join(style('dim', BAR)));
}
