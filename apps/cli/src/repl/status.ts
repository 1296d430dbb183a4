import type { Style } from '@birdie/terminal/style';

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

/** `[agent: NAME │ ]vendor · model │ session: ID │ ctx: N tok[ (P%)] │ spent: ↑IN ↓OUT tok` — P: share of the window. */
export function statusLine(s: StatusInput, style: Style): string {
  const bar = style('dim', ' │ ');
  return style(
    'dim',
    [
      ...(s.agent ? [`agent: ${s.agent}`] : []),
      `${s.vendor} · ${s.model}`,
      `session: ${s.sessionId}`,
      `ctx: ${s.contextTokens} tok${s.contextWindow > 0 ? ` (${Math.round((100 * s.contextTokens) / s.contextWindow)}%)` : ''}`,
      `spent: ↑${s.inputTokens} ↓${s.outputTokens} tok`,
    ].join(bar),
  );
}
